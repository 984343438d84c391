// omprof-viewer: the offline commands of `omprof` (which execs this with its arguments):
// report, export, view and diff (viewer/commands/*_command.cc), and `recover`, which the
// launcher runs to turn journals into profiles after a program died, and `probe-counters`,
// which it runs to check PAPI events before the program starts (both hidden).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "proto/cli_parse.h"
#include "viewer/commands/commands.h"

using namespace omprof::viewer;

// What the command wrote to standard output must have reached it (a full disk, /dev/full, a
// closed pipe): else one line and a non-zero status, never exit 0 with a truncated output.
static int checked_stdout(int status) {
  std::cout.flush();
  const bool ok = bool(std::cout) && std::fflush(stdout) == 0 && !std::ferror(stdout);
  const int error = errno;
  if (ok) return status;
  std::cerr << "omprof: cannot write the output: " << std::strerror(error ? error : EIO) << "\n";
  return status ? status : 1;
}

static int dispatch(int argc, char** argv) {
  // The views write through iostreams only: without C stdio's locking per call, a report of
  // millions of rows writes several times faster.
  std::ios::sync_with_stdio(false);
  CLI::App app{"omprof: a sampling profiler for OpenMP and MPI+OpenMP programs"};
  app.name("omprof");
  app.set_version_flag("--version", std::string("omprof ") + OMPROF_VERSION);
  app.require_subcommand(1);
  const commands::Command all[] = {commands::add_report(app),   commands::add_export(app),
                                   commands::add_view(app),     commands::add_diff(app),
                                   commands::add_scaling(app),  commands::add_advise(app),
                                   commands::add_timeline(app), commands::add_top(app),
                                   commands::add_recover(app),  commands::add_probe_counters(app)};
  if (const int status = omprof::cli::parse(app, argc, argv); status >= 0) return status;
  for (const commands::Command& c : all)
    if (c.app->parsed()) return c.run();
  return 2;  // require_subcommand(1) leaves no other case
}

int main(int argc, char** argv) {
  errno = 0;
  return checked_stdout(dispatch(argc, argv));
}
