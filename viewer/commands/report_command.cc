// `omprof report PROFILE...`: a profile's views; several MPI ranks' profiles as one job; MPI
// job summaries (.ompsum) printed as they are.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <sstream>

#include "proto/text.h"
#include "viewer/commands/commands.h"
#include "viewer/commands/options.h"
#include "viewer/job_report.h"
#include "viewer/mpi_sites.h"
#include "viewer/profile_inputs.h"
#include "viewer/report.h"
#include "viewer/sort_key.h"
#include "viewer/summary_reader.h"

namespace omprof::viewer::commands {

namespace {

struct ReportCommand {
  std::vector<std::string> files;
  ReportOptions options;
  std::string view = "user", format = "text", colour = "auto", sort = "self";
  bool ranks = false, mpi = false;
  int rank = -1;
  const CLI::Option* top = nullptr;  // given on the command line?
  const CLI::Option* min_percent = nullptr;
  const CLI::Option* width = nullptr;
};

void add_output_options(CLI::App* cmd, ReportCommand& r) {
  ReportOptions& rep = r.options;
  add_view_option(cmd, r.view);
  add_format_options(cmd, r.format,
                     "text, csv or json (one document: an object with an array per view; "
                     "docs/format.md)");
  r.top = cmd->add_option("--top", rep.top,
                          "Rows in the flat and MPI views (0: all; CSV: all unless given)")
              ->check(kCount)
              ->capture_default_str();
  r.min_percent = cmd->add_option("--min-percent", rep.min_percent,
                                  "Prune call-tree nodes below this (CSV: none unless given)")
                      ->check(kPercent)
                      ->capture_default_str();
  r.width = cmd->add_option("--width", rep.width,
                            "Text: fit lines to this many columns, shortening names in the "
                            "middle (0: full names; default: the terminal's width, else 0)");
  cmd->add_option("--color", r.colour,
                  "Text: colours (bold headers, omprof's wait frames in blue): auto (on a "
                  "terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  cmd->add_option("--sort", r.sort,
                  "Order of the flat and source-line views: self, total, work or wait time "
                  "(largest first)")
      ->check(CLI::IsMember({"self", "total", "work", "wait"}))
      ->capture_default_str();
}

void add_view_flags(CLI::App* cmd, ReportCommand& r) {
  ReportOptions& rep = r.options;
  cmd->add_flag("--flat", rep.flat, "Flat view of functions");
  cmd->add_flag("--tree", rep.tree, "Top-down call tree");
  cmd->add_flag("--lines", rep.lines,
                "Time by source line (file:line; inlined frames resolved): self and total");
  cmd->add_option("--callers", rep.callers,
                  "Bottom-up: the callers of FUNC up to the roots (a function's name, else a "
                  "regular expression over names)")
      ->type_name("FUNC");
  cmd->add_option("--callees", rep.callees,
                  "The call tree below FUNC, merged over its call sites (a name or a regex)")
      ->type_name("FUNC");
  cmd->add_flag("--threads", rep.threads, "Per-thread totals");
  cmd->add_flag("--states", rep.states, "Time by OpenMP state, total and per thread");
  cmd->add_flag("--parallel-regions", rep.parallel_regions, "Parallel regions with work and wait");
  cmd->add_flag("--idle-blame", rep.idle_blame,
                "Idle OpenMP workers' time by the main thread's serial code that kept them idle");
  cmd->add_flag("--regions", rep.explicit_regions,
                "Explicit regions (omprof/omprof.h): times, calls, work, wait, imbalance; over "
                "MPI ranks: min/avg/max per region path");
  cmd->add_flag("--ranks", r.ranks,
                "MPI ranks (several rank profiles): computation, OpenMP wait, MPI wait per rank");
  cmd->add_flag("--mpi", r.mpi,
                "Time in MPI by call site and region: calls, wall time (exact), CPU time; over "
                "ranks: min/avg/max");
  cmd->add_option("--rank", r.rank, "Of several rank profiles, report this rank's alone")
      ->check(CLI::NonNegativeNumber);
}

// An in-job MPI summary (.ompsum), printed as it is.
void print_summary(const std::string& file, ReportOutput& out) {
  const ranks::JobSummary s = read_summary_file(file);
  if (out.text()) {
    std::ostringstream text;  // names as a terminal may show them
    ranks::write_text(text, s);
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);) std::cout << text::printable(line) << "\n";
  } else {
    region_summary_section(out, s, "summary");
  }
}

// The summaries among the files are printed; the profiles are returned.
std::vector<std::string> print_summaries(const std::vector<std::string>& files, ReportOutput& out,
                                         int& status) {
  std::vector<std::string> profiles;
  for (const std::string& f : files) {
    if (!is_summary_path(f)) {
      profiles.push_back(f);
      continue;
    }
    try {
      print_summary(f, out);
    } catch (const format::ProfileError& e) {
      tell_unreadable(e, status);
    }
  }
  return profiles;
}

// `--mpi`: each profile is reduced to its call sites as it is read.
void report_mpi_sites(const ReportCommand& r, const std::vector<std::string>& files,
                      SymbolCache& symbols, ReportOutput& out, int& status) {
  std::vector<RankMpiSites> ranks;
  for_each_profile(files, symbols, status,
                   [&](const format::Profile& p) { ranks.push_back(mpi_sites(p)); });
  if (out.format() == Format::kJson)
    out.section("mpi", "", mpi_sites_table(ranks, r.options.top));
  else
    print_mpi_sites(std::cout, ranks, r.options.top, r.options.format);
}

// --rank N: the files of that rank alone; empty (and told) if none.
std::vector<std::string> files_of_rank(const std::vector<std::string>& files, int rank,
                                       SymbolCache& symbols, int& status) {
  std::vector<std::string> of_rank;
  for (const std::string& f : files) {
    try {
      if (load_profile(f, symbols).header.mpi_rank() == rank) of_rank.push_back(f);
    } catch (const format::ProfileError& e) {
      tell_unreadable(e, status);
    }
  }
  if (of_rank.empty()) std::cerr << "omprof: no profile of rank " << rank << " among the inputs\n";
  return of_rank;
}

int filter_failed(const FilterError& e) {
  std::cout.flush();
  std::cerr << "omprof: " << text::printable(e.what()) << "\n";
  return 1;
}

int report_profiles(const ReportCommand& r, std::vector<std::string> files, ReportOutput& out,
                    int status) {
  SymbolCache symbols;  // each binary is read once for all the files
  if (r.rank >= 0) {
    files = files_of_rank(files, r.rank, symbols, status);
    if (files.empty()) return 1;
  }
  if (r.mpi) {
    report_mpi_sites(r, files, symbols, out, status);
    if (!r.ranks && !any_view(r.options)) return status;
    out.text_out() << "\n";
  }
  if (r.rank < 0 && (r.ranks || several_ranks(files, symbols))) {
    try {
      return report_job(files, r.options, r.ranks, symbols, out, status);
    } catch (const FilterError& e) {
      return filter_failed(e);
    }
  }
  for (const std::string& file : files) {
    try {
      format::Profile p = load_profile(file, symbols);
      if (files.size() > 1) out.next_profile();
      print_report(out, p, r.options);
    } catch (const FilterError& e) {
      status = filter_failed(e);
    } catch (const format::ProfileError& e) {
      tell_unreadable(e, status);
    }
  }
  return status;
}

int run(ReportCommand& r) {
  omp::parse_view(r.view, r.options.view);
  parse_sort_key(r.sort, r.options.sort);
  r.options.format = parse_format(r.format);
  // Machine-readable output is complete unless the user asks for a limit.
  if (machine_readable(r.options.format)) {
    if (!r.top->count()) r.options.top = 0;
    if (!r.min_percent->count()) r.options.min_percent = 0;
  }
  if (!r.width->count()) r.options.width = terminal_width();
  if (!valid_filter(r.options.filter)) return 2;
  ReportOutput out(std::cout, r.options.format, r.options.width, use_colour(r.colour));
  int status = 0;
  const std::vector<std::string> profiles =
      print_summaries(expand_profile_arguments(r.files, status), out, status);
  if (!profiles.empty()) status = report_profiles(r, profiles, out, status);
  out.finish();
  return status;
}

}  // namespace

Command add_report(CLI::App& app) {
  auto r = std::make_shared<ReportCommand>();
  CLI::App* cmd = app.add_subcommand("report", "Print a profile's views");
  cmd->add_option("profiles", r->files, "Profile files, or directories of them")->required();
  add_output_options(cmd, *r);
  add_view_flags(cmd, *r);
  add_filter_options(cmd, r->options.filter);
  return {cmd, [r] { return run(*r); }};
}

}  // namespace omprof::viewer::commands
