// omprof-viewer: the offline commands of `omprof` (which execs this with its arguments):
// report (read profiles) and export (write them in other tools' formats); and `recover`, which
// the launcher runs to turn journals into profiles after a program died (hidden).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "omp/states.h"
#include "proto/cli_parse.h"
#include "proto/journal_reader.h"
#include "proto/options.h"
#include "proto/profile_reader.h"
#include "proto/text.h"
#include "viewer/call_views.h"
#include "viewer/diff.h"
#include "viewer/export.h"
#include "viewer/html_view.h"
#include "viewer/mpi_sites.h"
#include "viewer/rank_spread.h"
#include "viewer/rank_tree.h"
#include "viewer/ranks.h"
#include "viewer/recover.h"
#include "viewer/report.h"
#include "viewer/run_configuration.h"
#include "viewer/summary_reader.h"
#include "viewer/symbolize.h"

using namespace omprof;

// A directory stands for the profiles in it (what `omprof run -o DIR` wrote), in name order:
// *.omprof files, and the journals of processes that have not written theirs (still running,
// or dead without `omprof run` to recover them). A directory without any is an error of its own.
// Row counts: digits only ("-1" wrapped around to 18446744073709551615).
static const CLI::Validator kCount(
    [](std::string& s) {
      const bool ok =
          !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos;
      return ok ? std::string() : "'" + s + "' is not a whole number of rows (0: all)";
    },
    "N");
// Percentages: a finite number from 0 to 100 ("nan" passed CLI::Range and pruned everything).
static const CLI::Validator kPercent(
    [](std::string& s) {
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      const bool ok =
          !s.empty() && end == s.c_str() + s.size() && std::isfinite(v) && v >= 0 && v <= 100;
      return ok ? std::string() : "'" + s + "' is not a number from 0 to 100";
    },
    "PERCENT");

static std::vector<std::string> expand_profile_arguments(const std::vector<std::string>& args,
                                                         int& status) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(a, ec)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(a, ec))
      if ((e.path().extension() == ".omprof" || format::is_journal_path(e.path().string())) &&
          e.is_regular_file(ec))
        found.push_back(e.path().string());
    if (found.empty()) {
      std::cerr << "omprof: " << a << ": no .omprof profiles in this directory\n";
      status = 1;
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

struct ReportCommand {
  std::vector<std::string> files;
  viewer::ReportOptions options;
  std::string view = "user", format = "text", colour = "auto", sort = "self";
  bool ranks = false, mpi = false;
  int rank = -1;
  const CLI::Option* top = nullptr;  // given on the command line?
  const CLI::Option* min_percent = nullptr;
  const CLI::Option* width = nullptr;
};

// The sample filters (viewer/filter.h), shared by the commands that read samples.
static void add_filter_options(CLI::App* cmd, viewer::FilterOptions& f) {
  cmd->add_option("--thread", f.threads,
                  "Count only this thread's samples (the threads view's index; repeatable)");
  cmd->add_option("--state", f.states,
                  "Count only samples in this state: work, wait, overhead, or a state's name "
                  "(wait_barrier_implicit_parallel, mpi, ...; --states lists them; repeatable)");
  cmd->add_option("--region", f.regions,
                  "Count only samples in this explicit region (a name, or a path outer/inner; "
                  "nested regions included; repeatable)");
  cmd->add_option("--focus", f.focus,
                  "Count only samples with a frame whose name matches this regular expression");
  cmd->add_option("--ignore", f.ignore,
                  "Leave out samples with a frame whose name matches this regular expression");
}

// A filter that cannot work (a bad regular expression, an unknown state) is a usage error.
static bool valid_filter(const viewer::FilterOptions& f) {
  try {
    viewer::SampleFilter check(f);
    return true;
  } catch (const viewer::FilterError& e) {
    std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
    return false;
  }
}

static CLI::App* add_report_command(CLI::App& app, ReportCommand& r) {
  viewer::ReportOptions& rep = r.options;
  CLI::App* cmd = app.add_subcommand("report", "Print a profile's views");
  cmd->add_option("profiles", r.files, "Profile files, or directories of them")->required();
  cmd->add_option("--view", r.view, "user, expert or machine stacks")
      ->check(CLI::IsMember({"user", "expert", "machine"}))
      ->capture_default_str();
  cmd->add_option("--format", r.format,
                  "text, csv or json (one document: an object with an array per view; "
                  "docs/format.md)")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  cmd->add_flag(
      "--csv", [&r](int64_t) { r.format = "csv"; }, "Same as --format csv");
  cmd->add_flag(
      "--json", [&r](int64_t) { r.format = "json"; }, "Same as --format json");
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
  add_filter_options(cmd, rep.filter);
  return cmd;
}

// The sample views of several ranks, filled one rank at a time (memory grows with the merged
// views, not with ranks x samples).
struct RankViews {
  explicit RankViews(const viewer::ReportOptions& options) : o(options) {
    if (!o.callees.empty()) call_trees.emplace_back(false, o.callees);
    if (!o.callers.empty()) call_trees.emplace_back(true, o.callers);
  }
  bool wanted() const {
    return o.tree || o.flat || o.lines || o.threads || o.states || o.parallel_regions ||
           !call_trees.empty();
  }
  void add(const format::Profile& p) {
    viewer::Model m = viewer::build_model(p, o.view);
    viewer::apply_filter(m, viewer::SampleFilter(o.filter));
    const int rank = p.header.mpi_rank();
    const std::string rank_text = std::to_string(rank);
    total_ns += m.total_weight_ns;
    if (o.tree) tree.add_rank(rank, m);
    if (o.flat) flat.add_rank(rank, m);
    if (o.lines) lines.add(m);
    for (auto& t : call_trees) t.add(m);
    // Per-rank tables, under a rank column.
    if (o.threads) threads.append_with("rank", rank_text, viewer::thread_table(m, o.format));
    if (o.states) {
      states.append_with("rank", rank_text, viewer::state_table(m));
      std::map<std::string, std::pair<std::string, uint64_t>> by_state;
      for (const auto& s : m.samples) {
        auto& v = by_state[omp::describe_state(s.state).name];
        v.first = omp::is_wait(s.state) ? "wait" : "work";
        v.second += s.weight_ns;
      }
      states_over.add_rank(rank, by_state);
    }
    if (o.parallel_regions) {
      parallel_regions.append_with("rank", rank_text, viewer::parallel_region_table(m, o.format));
      std::map<std::string, std::pair<std::string, uint64_t>> by_construct;
      for (const auto& [key, r] : viewer::parallel_region_totals(m))
        by_construct[key] = {"", r.incl};
      parallel_regions_over.add_rank(rank, by_construct);
    }
  }
  void print(viewer::ReportOutput& out) const {
    if (o.flat)
      out.section("flat",
                  fmt::format("Flat profile over ranks (top {} by {} time summed over ranks; "
                              "min/avg/max of self time over the ranks whose samples reached "
                              "each function):",
                              o.top, viewer::sort_key_name(o.sort)),
                  flat.table(o.top, o.format, o.sort));
    if (o.tree)
      out.section("tree",
                  fmt::format("Call tree over ranks (min/avg/max of inclusive time over the "
                              "ranks that reached each node; nodes >= {}% of the total):",
                              o.min_percent),
                  tree.table(o.min_percent, o.format));
    if (o.lines)
      out.section("lines",
                  fmt::format("Source lines over ranks (summed; {} by {} time):",
                              o.top ? "top " + std::to_string(o.top) : std::string("all"),
                              viewer::sort_key_name(o.sort)),
                  lines.table(total_ns, o.top, o.format, o.sort));
    for (const auto& t : call_trees)
      out.section(t.key(), t.title(o.min_percent, "summed over ranks"),
                  t.table(o.min_percent, total_ns, o.format));
    if (o.threads) out.section("threads", "Threads of each rank:", threads);
    if (o.states) {
      out.section("states_over_ranks",
                  "OpenMP states over ranks (each rank's time in the state, all threads; min/avg/"
                  "max over all ranks, a rank without the state counting 0):",
                  states_over.table("state", "class"));
      out.section("states", "OpenMP states of each rank:", states);
    }
    if (o.parallel_regions) {
      out.section("parallel_regions_over_ranks",
                  "Parallel regions over ranks (each rank's thread time inside the construct; "
                  "min/avg/max over all ranks, a rank without it counting 0):",
                  parallel_regions_over.table("construct", ""));
      out.section("parallel_regions", "Parallel regions of each rank:", parallel_regions);
    }
  }

  const viewer::ReportOptions& o;
  viewer::RankTree tree;
  viewer::RankFlat flat;
  viewer::LineTotals lines;
  std::vector<viewer::CallTree> call_trees;
  viewer::Table threads{{}}, states{{}}, parallel_regions{{}};
  viewer::RankSpread states_over, parallel_regions_over;
  uint64_t total_ns = 0;
};

// Several MPI ranks' profiles: each is reduced to its numbers as it is read (memory grows with
// ranks x region paths, not samples), then the cross-rank summary and the requested views.
static int report_ranks(ReportCommand& r, const std::vector<std::string>& files,
                        viewer::SymbolCache& symbols, viewer::ReportOutput& out, int status) {
  std::vector<viewer::RankNumbers> ranks;
  std::map<std::string, std::vector<int64_t>> unusual_endings;  // how -> ranks
  const auto& o = r.options;
  RankViews views(o);
  int64_t size = 0;
  for (const std::string& file : files) {
    try {
      format::Profile p = viewer::load_profile(file, symbols);
      if (p.header.mpi_rank() < 0) {
        std::cerr << "omprof: " << file << ": not an MPI rank's profile; left out\n";
        status = 1;
        continue;
      }
      size = std::max<int64_t>(size, p.header.mpi_size());
      const auto& ending = p.header.ending();
      if (p.header.recovered() || ending.kind() != v1::Ending::ENDING_EXITED ||
          ending.exit_status() != 0)
        unusual_endings[viewer::ending_text(p.header)].push_back(p.header.mpi_rank());
      ranks.push_back(viewer::rank_numbers(p));
      if (views.wanted()) views.add(p);
    } catch (const format::ProfileError& e) {
      std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
      status = 1;
    }
  }
  std::sort(ranks.begin(), ranks.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  const ranks::JobSummary job =
      ranks::summarize_ranks(ranks, std::max<int64_t>(size, int64_t(ranks.size())));
  {
    std::ostringstream text;
    ranks::write_header(text, job);
    // Ranks that did not end normally (killed, recovered from their journals) are named: their
    // times end where they died, not at MPI_Finalize.
    for (auto& [how, which] : unusual_endings) {
      std::sort(which.begin(), which.end());
      std::string list;
      for (const int64_t rank : which) list += (list.empty() ? "" : ", ") + std::to_string(rank);
      text << fmt::format("Ended:     {} {}: {}\n", which.size() == 1 ? "rank" : "ranks", list,
                          how);
    }
    out.text_out() << text.str();
  }
  if (r.ranks || !o.explicit_regions) out.section("ranks", "Ranks:", viewer::ranks_table(ranks));
  if (o.explicit_regions) {
    if (out.text()) {
      out.text_out() << "\n";
      ranks::write_regions_text(out.text_out(), job);
    } else if (out.format() == viewer::Format::kCsv) {
      out.section_csv_text([&](std::ostream& csv) { ranks::write_regions_csv(csv, job); });
    } else {
      std::ostringstream csv;
      ranks::write_regions_csv(csv, job);
      out.section("regions", "", viewer::Table::from_csv(csv.str(), {"path"}));
    }
  }
  views.print(out);
  return status;
}

// Whether the files are several MPI ranks' profiles (the first one says).
static bool several_ranks(const std::vector<std::string>& files, viewer::SymbolCache& symbols) {
  if (files.size() < 2) return false;
  try {
    return viewer::load_profile(files[0], symbols).header.mpi_rank() >= 0;
  } catch (const format::ProfileError&) {
    return false;
  }
}

// `--mpi`: each profile is reduced to its call sites as it is read.
static int report_mpi_sites(const ReportCommand& r, const std::vector<std::string>& files,
                            viewer::SymbolCache& symbols, viewer::ReportOutput& out, int status) {
  std::vector<viewer::RankMpiSites> ranks;
  for (const std::string& file : files) {
    try {
      ranks.push_back(viewer::mpi_sites(viewer::load_profile(file, symbols)));
    } catch (const format::ProfileError& e) {
      std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
      status = 1;
    }
  }
  if (out.format() == viewer::Format::kJson) {
    out.section("mpi", "", viewer::mpi_sites_table(ranks, r.options.top));
    return status;
  }
  viewer::print_mpi_sites(std::cout, ranks, r.options.top, r.options.format);
  return status;
}

static bool other_views(const ReportCommand& r) {
  const auto& o = r.options;
  return r.ranks || viewer::any_view(o);
}

// Columns of the terminal on standard output; 0 when it is not a terminal (a file, a pipe):
// then names are never shortened.
static size_t terminal_width() {
  winsize ws{};
  if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

// Colours only on a terminal, and never when NO_COLOR is set to anything (no-color.org), unless
// asked for: --color always|never|auto.
static bool use_colour(const std::string& choice) {
  if (choice == "always") return true;
  if (choice == "never") return false;
  const char* no_colour = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && !(no_colour && *no_colour);
}

static int report_to(ReportCommand& r, viewer::ReportOutput& out) {
  int status = 0;
  std::vector<std::string> files = expand_profile_arguments(r.files, status);
  // In-job MPI summaries (.ompsum) are printed as they are; the rest are profiles.
  std::vector<std::string> profiles;
  for (const std::string& f : files) {
    if (!viewer::is_summary_path(f)) {
      profiles.push_back(f);
      continue;
    }
    try {
      const ranks::JobSummary s = viewer::read_summary_file(f);
      if (out.text()) {
        std::ostringstream text;  // names as a terminal may show them
        ranks::write_text(text, s);
        std::istringstream lines(text.str());
        for (std::string line; std::getline(lines, line);)
          std::cout << omprof::text::printable(line) << "\n";
      } else if (out.format() == viewer::Format::kCsv) {
        out.section_csv_text([&](std::ostream& csv) { ranks::write_regions_csv(csv, s); });
      } else {
        std::ostringstream csv;
        ranks::write_regions_csv(csv, s);
        out.section("summary", "", viewer::Table::from_csv(csv.str(), {"path"}));
      }
    } catch (const format::ProfileError& e) {
      std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
      status = 1;
    }
  }
  if (profiles.empty()) return status;
  files = profiles;
  viewer::SymbolCache symbols;  // each binary is read once for all the files
  if (r.rank >= 0) {
    std::vector<std::string> of_rank;
    for (const std::string& f : files) {
      try {
        if (viewer::load_profile(f, symbols).header.mpi_rank() == r.rank) of_rank.push_back(f);
      } catch (const format::ProfileError& e) {
        std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
        status = 1;
      }
    }
    if (of_rank.empty()) {
      std::cerr << "omprof: no profile of rank " << r.rank << " among the inputs\n";
      return 1;
    }
    files = of_rank;
  }
  if (r.mpi) {
    status = report_mpi_sites(r, files, symbols, out, status);
    if (!other_views(r)) return status;
    out.text_out() << "\n";
  }
  if (r.rank < 0 && (r.ranks || several_ranks(files, symbols))) {
    try {
      return report_ranks(r, files, symbols, out, status);
    } catch (const viewer::FilterError& e) {
      std::cout.flush();
      std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
      return 1;
    }
  }
  for (const std::string& file : files) {
    try {
      format::Profile p = viewer::load_profile(file, symbols);
      if (files.size() > 1) out.next_profile();
      viewer::print_report(out, p, r.options);
    } catch (const viewer::FilterError& e) {
      std::cout.flush();
      std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
      status = 1;
    } catch (const format::ProfileError& e) {
      std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
      status = 1;
    }
  }
  return status;
}

static int report(ReportCommand& r) {
  omp::parse_view(r.view, r.options.view);
  viewer::parse_sort_key(r.sort, r.options.sort);
  r.options.format = r.format == "csv"    ? viewer::Format::kCsv
                     : r.format == "json" ? viewer::Format::kJson
                                          : viewer::Format::kText;
  // Machine-readable output is complete unless the user asks for a limit.
  if (viewer::machine_readable(r.options.format)) {
    if (!r.top->count()) r.options.top = 0;
    if (!r.min_percent->count()) r.options.min_percent = 0;
  }
  if (!r.width->count()) r.options.width = terminal_width();
  if (!valid_filter(r.options.filter)) return 2;
  viewer::ReportOutput out(std::cout, r.options.format, r.options.width, use_colour(r.colour));
  const int status = report_to(r, out);
  out.finish();
  return status;
}

struct ExportCommand {
  std::vector<std::string> files;
  std::string format = "pprof", view = "user", output = "-";
  bool state_leaf = false;
  int rank = -1;
  viewer::FilterOptions filter;
};

static CLI::App* add_export_command(CLI::App& app, ExportCommand& e) {
  CLI::App* cmd = app.add_subcommand(
      "export", "Write profiles in another tool's format (several files or ranks merge)");
  cmd->add_option("profiles", e.files, "Profile files, or directories of them")->required();
  cmd->add_option("--format", e.format,
                  "pprof (gzip'd profile.proto for go tool pprof), folded (flamegraph.pl) or "
                  "speedscope (JSON, one profile per rank and thread)")
      ->check(CLI::IsMember({"pprof", "folded", "speedscope"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", e.output, "Output file ('-': standard output)")
      ->capture_default_str();
  cmd->add_option("--view", e.view, "user, expert or machine stacks")
      ->check(CLI::IsMember({"user", "expert", "machine"}))
      ->capture_default_str();
  cmd->add_flag("--state-leaf", e.state_leaf,
                "folded, speedscope: add the OpenMP state as a leaf frame ([wait_barrier])");
  cmd->add_option("--rank", e.rank, "Of several rank profiles, export this rank's alone")
      ->check(CLI::NonNegativeNumber);
  add_filter_options(cmd, e.filter);
  return cmd;
}

// Writes `path` through a temporary file renamed at the end: a failed write never leaves a
// truncated file where a good one was expected. The temporary file is new (mkstemp: O_EXCL, so
// a symlink planted at its name is never followed) and gets the mode a new file would get.
template <typename Write>
static int write_file_atomically(const std::string& path, const char* command, Write write) {
  std::string tmp = path + ".tmpXXXXXX";
  const int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    std::cerr << "omprof: " << command << ": cannot write '" << path
              << "': " << std::strerror(errno) << "\n";
    return 1;
  }
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  {
    __gnu_cxx::stdio_filebuf<char> buffer(fd, std::ios::out | std::ios::binary);  // closes fd
    std::ostream out(&buffer);
    write(out);
    out.flush();
    if (!out || buffer.close() == nullptr) {
      std::cerr << "omprof: " << command << ": cannot write '" << path
                << "': " << std::strerror(errno) << "\n";
      std::remove(tmp.c_str());
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::cerr << "omprof: " << command << ": cannot write '" << path
              << "': " << std::strerror(errno) << "\n";
    std::remove(tmp.c_str());
    return 1;
  }
  return 0;
}

// `export`: the profiles merged into one file in another tool's format.
static int export_profiles(const ExportCommand& e) {
  viewer::ExportOptions opt;
  viewer::parse_export_format(e.format, opt.format);
  omp::parse_view(e.view, opt.view);
  opt.state_leaf = e.state_leaf;
  const bool to_stdout = e.output == "-";
  if (to_stdout && opt.format == viewer::ExportFormat::kPprof && isatty(1)) {
    std::cerr << "omprof: export: pprof output is binary; give -o FILE\n";
    return 2;
  }
  if (!valid_filter(e.filter)) return 2;
  const viewer::SampleFilter filter(e.filter);
  int status = 0;
  const std::vector<std::string> files = expand_profile_arguments(e.files, status);
  auto exporter = viewer::make_exporter(opt);
  viewer::SymbolCache symbols;
  viewer::MergeGuard guard;
  size_t exported = 0;
  for (const std::string& f : files) {
    if (viewer::is_summary_path(f)) {
      std::cerr << "omprof: " << f << ": an MPI job summary, not a profile; left out\n";
      status = 1;
      continue;
    }
    try {
      const format::Profile p = viewer::load_profile(f, symbols);
      if (e.rank >= 0 && p.header.mpi_rank() != e.rank) continue;
      if (std::string error; !guard.admit(p, error)) {
        std::cerr << "omprof: export: " << error << "\n";
        return 2;
      }
      viewer::Model m = viewer::build_model(p, opt.view);
      viewer::apply_filter(m, filter);
      exporter->add(p, m);
      ++exported;
    } catch (const format::ProfileError& err) {
      std::cerr << "omprof: " << err.what() << "\n";
      status = 1;
    }
  }
  if (!exported) {
    std::cerr << "omprof: export: no profile to export"
              << (e.rank >= 0 ? " of rank " + std::to_string(e.rank) : std::string()) << "\n";
    return 1;
  }
  if (to_stdout) {
    exporter->write(std::cout);
    std::cout.flush();
    return std::cout ? status : 1;
  }
  if (const int failed = write_file_atomically(e.output, "export",
                                               [&](std::ostream& out) { exporter->write(out); }))
    return failed;
  return status;
}

// `view PROFILE... -o FILE.html`: the profiles merged into one page.
struct ViewCommand {
  std::vector<std::string> files;
  std::string output = "omprof.html", view = "user";
  int rank = -1;
  viewer::FilterOptions filter;
};

static CLI::App* add_view_command(CLI::App& app, ViewCommand& v) {
  CLI::App* cmd = app.add_subcommand(
      "view",
      "Write one self-contained HTML page (no network needed): an interactive flame graph "
      "coloured by work and wait, regions, threads, ranks, states");
  cmd->add_option("profiles", v.files, "Profile files, or directories of them")->required();
  cmd->add_option("-o,--output", v.output, "The HTML file to write")->capture_default_str();
  cmd->add_option("--view", v.view, "user, expert or machine stacks")
      ->check(CLI::IsMember({"user", "expert", "machine"}))
      ->capture_default_str();
  cmd->add_option("--rank", v.rank, "Of several rank profiles, this rank's alone")
      ->check(CLI::NonNegativeNumber);
  add_filter_options(cmd, v.filter);
  return cmd;
}

static int view(const ViewCommand& v) {
  omp::View model_view = omp::View::kUser;
  omp::parse_view(v.view, model_view);
  if (!valid_filter(v.filter)) return 2;
  const viewer::SampleFilter filter(v.filter);
  int status = 0;
  const std::vector<std::string> files = expand_profile_arguments(v.files, status);
  viewer::HtmlView page;
  viewer::SymbolCache symbols;
  viewer::MergeGuard guard;
  for (const std::string& f : files) {
    if (viewer::is_summary_path(f)) continue;  // the job summary: the rank profiles hold it all
    try {
      const format::Profile p = viewer::load_profile(f, symbols);
      if (v.rank >= 0 && p.header.mpi_rank() != v.rank) continue;
      if (std::string error; !guard.admit(p, error)) {
        std::cerr << "omprof: view: " << error << "\n";
        return 2;
      }
      viewer::Model m = viewer::build_model(p, model_view);
      viewer::apply_filter(m, filter);
      page.add(p, m);
    } catch (const format::ProfileError& e) {
      std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
      status = 1;
    }
  }
  if (!page.profiles()) {
    std::cerr << "omprof: view: no profile to show\n";
    return 1;
  }
  const int written =
      write_file_atomically(v.output, "view", [&](std::ostream& out) { page.write(out); });
  if (written) return written;
  std::cerr << "omprof: wrote " << v.output << " (" << page.profiles() << " profile"
            << (page.profiles() == 1 ? "" : "s") << ")\n";
  return status;
}

// `diff BASE NEW`: each side a profile, or a directory of them (the ranks of one job, or
// repeated runs), reduced to its totals as its files are read.
struct DiffCommand {
  std::string base, now;
  std::string view = "user", format = "text", sort = "self", colour = "auto";
  size_t top = 20, width = 0;
  const CLI::Option* top_option = nullptr;
  const CLI::Option* width_option = nullptr;
  viewer::FilterOptions filter;
};

static CLI::App* add_diff_command(CLI::App& app, DiffCommand& d) {
  CLI::App* cmd =
      app.add_subcommand("diff", "Compare two runs: what changed per function and region");
  cmd->add_option("base", d.base, "The run to compare against: a profile or a directory")
      ->required();
  cmd->add_option("new", d.now, "The run to compare: a profile or a directory")->required();
  cmd->add_option("--view", d.view, "user, expert or machine stacks")
      ->check(CLI::IsMember({"user", "expert", "machine"}))
      ->capture_default_str();
  cmd->add_option("--format", d.format, "text, csv or json")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  cmd->add_flag(
      "--csv", [&d](int64_t) { d.format = "csv"; }, "Same as --format csv");
  cmd->add_flag(
      "--json", [&d](int64_t) { d.format = "json"; }, "Same as --format json");
  d.top_option =
      cmd->add_option("--top", d.top, "Function rows (0: all; CSV, JSON: all unless given)")
          ->check(kCount)
          ->capture_default_str();
  d.width_option = cmd->add_option("--width", d.width,
                                   "Text: fit lines to this many columns (0: full names; default: "
                                   "the terminal's width, else 0)");
  cmd->add_option("--color", d.colour,
                  "Text: colours: auto (a terminal without NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  cmd->add_option("--sort", d.sort, "Order functions by the change of their self or total time")
      ->check(CLI::IsMember({"self", "total"}))
      ->capture_default_str();
  add_filter_options(cmd, d.filter);
  return cmd;
}

static bool read_diff_side(const std::string& arg, omp::View view,
                           const viewer::SampleFilter& filter, viewer::SymbolCache& symbols,
                           viewer::DiffSide& side) {
  int status = 0;
  for (const std::string& f : expand_profile_arguments({arg}, status)) {
    if (viewer::is_summary_path(f)) continue;  // an MPI job summary: no samples
    try {
      const format::Profile p = viewer::load_profile(f, symbols);
      viewer::Model m = viewer::build_model(p, view);
      viewer::apply_filter(m, filter);
      side.add(m);
    } catch (const format::ProfileError& e) {
      std::cerr << "omprof: " << omprof::text::printable(e.what()) << "\n";
      return false;
    }
  }
  side.finish();
  if (status == 0 && side.profiles == 0)
    std::cerr << "omprof: diff: " << arg << ": no profile in it\n";
  return status == 0 && side.profiles > 0;
}

static int diff(DiffCommand& d) {
  omp::View view = omp::View::kUser;
  omp::parse_view(d.view, view);
  const viewer::Format format = d.format == "csv"    ? viewer::Format::kCsv
                                : d.format == "json" ? viewer::Format::kJson
                                                     : viewer::Format::kText;
  if (viewer::machine_readable(format) && !d.top_option->count()) d.top = 0;
  if (!valid_filter(d.filter)) return 2;
  const viewer::SampleFilter filter(d.filter);
  viewer::SymbolCache symbols;
  viewer::DiffSide base, now;
  if (!read_diff_side(d.base, view, filter, symbols, base) ||
      !read_diff_side(d.now, view, filter, symbols, now))
    return 1;
  viewer::ReportOutput out(std::cout, format, d.width_option->count() ? d.width : terminal_width());
  out.text_out() << fmt::format("Base:      {} ({} profile{})\nNew:       {} ({} profile{})\n",
                                d.base, base.profiles, base.profiles == 1 ? "" : "s", d.now,
                                now.profiles, now.profiles == 1 ? "" : "s");
  if (!d.filter.empty()) out.text_out() << "Filter:    " << d.filter.describe() << "\n";
  out.value("base", {{"input", d.base}, {"profiles", base.profiles}});
  out.value("new", {{"input", d.now}, {"profiles", now.profiles}});
  out.section("totals", "Totals (thread time: sampled and measured, summed over threads):",
              viewer::diff_totals_table(base, now, format));
  out.section("functions",
              fmt::format("Functions ({} by change of {} time; delta = new - base):",
                          d.top ? "top " + std::to_string(d.top) : std::string("all"), d.sort),
              viewer::diff_functions_table(base, now, d.top, d.sort == "total", format));
  if (!base.regions.empty() || !now.regions.empty())
    out.section("regions",
                "Explicit regions (incl: the slowest thread's inclusive wall time, averaged "
                "over profiles; calls summed):",
                viewer::diff_regions_table(base, now, format));
  else
    out.text_out() << "\n(No explicit regions in either run.)\n";
  if (!base.parallel_regions.empty() || !now.parallel_regions.empty())
    out.section("parallel_regions",
                "Parallel regions (wall: fork to join, summed over instances, averaged over "
                "profiles; incl: thread time inside, summed over threads and profiles; wait% of "
                "that time):",
                viewer::diff_parallel_regions_table(base, now, format));
  else
    out.text_out() << "\n(No parallel regions in either run.)\n";
  out.finish();
  return 0;
}

// `recover --child PID --status S --end-ns N PID:JOURNAL...`, from the launcher: exit 0 if a
// profile was written, 1 if none.
struct RecoverCommand {
  int64_t child = 0, status = 0;
  uint64_t end_ns = 0;
  std::vector<std::string> journals;
};

static int recover(const RecoverCommand& r) {
  std::vector<viewer::JournalOf> journals;
  for (const std::string& j : r.journals) {
    const size_t colon = j.find(':');
    if (colon == std::string::npos) continue;
    journals.push_back({pid_t(std::atol(j.substr(0, colon).c_str())), j.substr(colon + 1)});
  }
  const int written = viewer::recover_journals(journals, pid_t(r.child), int(r.status), r.end_ns);
  return written > 0 ? 0 : 1;
}

// What the command wrote to standard output must have reached it (a full disk, /dev/full, a
// closed pipe): else one line and a non-zero status, never exit 0 with a truncated output.
int checked_stdout(int status) {
  std::cout.flush();
  const bool ok = bool(std::cout) && std::fflush(stdout) == 0 && !std::ferror(stdout);
  const int error = errno;
  if (ok) return status;
  std::cerr << "omprof: cannot write the output: " << std::strerror(error ? error : EIO) << "\n";
  return status ? status : 1;
}

int dispatch(int argc, char** argv) {
  // The views write through iostreams only: without C stdio's locking per call, a report of
  // millions of rows writes several times faster.
  std::ios::sync_with_stdio(false);
  CLI::App app{"omprof: a sampling profiler for OpenMP and MPI+OpenMP programs"};
  app.name("omprof");
  app.set_version_flag("--version", std::string("omprof ") + OMPROF_VERSION);
  app.require_subcommand(1);
  ReportCommand rep;
  CLI::App* report_cmd = add_report_command(app, rep);
  ExportCommand exp;
  CLI::App* export_cmd = add_export_command(app, exp);
  ViewCommand vw;
  CLI::App* view_cmd = add_view_command(app, vw);
  DiffCommand dif;
  CLI::App* diff_cmd = add_diff_command(app, dif);
  RecoverCommand rec;
  CLI::App* recover_cmd = app.add_subcommand("recover", "");
  recover_cmd->group("");  // the launcher's, not the user's
  recover_cmd->add_option("--child", rec.child)->required();
  recover_cmd->add_option("--status", rec.status)->required();
  recover_cmd->add_option("--end-ns", rec.end_ns)->required();
  recover_cmd->add_option("journals", rec.journals);
  if (const int status = cli::parse(app, argc, argv); status >= 0) return status;
  if (export_cmd->parsed()) return export_profiles(exp);
  if (diff_cmd->parsed()) return diff(dif);
  if (view_cmd->parsed()) return view(vw);
  if (recover_cmd->parsed()) return recover(rec);
  (void)report_cmd;
  return report(rep);
}

int main(int argc, char** argv) {
  errno = 0;
  return checked_stdout(dispatch(argc, argv));
}
