#include "collector/writer/summary_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "collector/modules.h"
#include "collector/run_report.h"
#include "collector/runtime.h"
#include "collector/writer/journal_entries.h"
#include "proto/manifest.h"
#include "ranks/summary_file.h"

namespace omprof::writer {

namespace {

std::string program_path() {
  const std::vector<unwind::Module> modules = recorded_modules();
  return modules.empty() ? "" : modules.front().path;
}

// `<dir>/<program>.<pid>.summary[.<n>]`: the first n for which the text file is new.
std::string summary_stem(int& txt_fd, std::string& error) {
  const std::string base =
      runtime().config.output_dir + "/" + file_stem(program_path(), -1) + ".summary";
  for (int n = 0; n < 1000; ++n) {
    const std::string stem = base + (n ? "." + std::to_string(n) : "");
    txt_fd = ::open((stem + ".txt").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (txt_fd >= 0) return stem;
    if (errno != EEXIST) break;
  }
  error = "cannot create '" + base + ".txt': " + std::strerror(errno);
  return "";
}

bool write_new_file(const std::string& path, const std::string& data, std::string& error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  const bool ok = fd >= 0 && write_all(fd, data);
  if (fd >= 0 && ::close(fd) != 0 && ok) error = "cannot write '" + path + "'";
  if (!ok) error = "cannot write '" + path + "': " + std::strerror(errno);
  return ok && error.empty();
}

void tell(const std::string& message) {
  if (runtime().config.manifest.empty())
    std::fprintf(stderr, "omprof: %s\n", message.c_str());
  else
    append_manifest(manifest::note_line(message));
}

}  // namespace

void write_summary_files(const ranks::JobSummary& s, const ReductionCost& cost) {
  release_reserved_descriptor();
  int txt = -1;
  std::string error;
  const std::string stem = summary_stem(txt, error);
  if (txt < 0) {
    tell("MPI summary not written: " + error);
    return;
  }
  std::ostringstream text, csv;
  ranks::write_text(text, s);
  char footer[256];
  std::snprintf(footer, sizeof footer,
                "\n(reduced over %lld ranks in %.3f ms inside MPI_Finalize: %.3f ms for rank 0's "
                "own numbers, %llu messages of %llu bytes received; rank profiles hold the whole "
                "run)\n",
                (long long)s.size, double(cost.total_ns) / 1e6, double(cost.snapshot_ns) / 1e6,
                (unsigned long long)cost.messages, (unsigned long long)cost.bytes);
  text << footer;
  ranks::write_regions_csv(csv, s);
  bool ok = write_all(txt, text.str());
  if (::close(txt) != 0) ok = false;
  if (!ok) error = "cannot write '" + stem + ".txt': " + std::strerror(errno);
  ok = ok && write_new_file(stem + ".csv", csv.str(), error) &&
       write_new_file(stem + ".ompsum",
                      ranks::encode_summary_file(s, program_path(), cost.total_ns), error);
  if (!ok) {
    tell("MPI summary not written: " + error);
    return;
  }
  char eff[64];
  std::snprintf(eff, sizeof eff, "%.3f", s.eff.parallel);
  tell("MPI summary of " + std::to_string(s.size) + " ranks: " + stem +
       ".txt (.csv, .ompsum); parallel efficiency " + eff +
       (s.differing_ranks.empty() ? "" : "; region trees differ between ranks"));
}

void write_summary_missing(const std::string& why) {
  release_reserved_descriptor();
  int txt = -1;
  std::string error;
  const std::string stem = summary_stem(txt, error);
  const std::string message = "no MPI summary: " + why + " (rank profiles are written)";
  if (txt >= 0) {
    write_all(txt,
              "omprof MPI summary: missing: " + why +
                  "\nEach rank's profile is still written; `omprof report DIR` reduces them.\n");
    ::close(txt);
  }
  tell(message);
}

}  // namespace omprof::writer
