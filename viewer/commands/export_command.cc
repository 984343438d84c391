// `omprof export PROFILE... --format pprof|folded|speedscope` and `omprof view PROFILE... -o
// page.html`: the profiles merged into one file (runs of different configurations refused).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "viewer/advice.h"
#include "viewer/commands/commands.h"
#include "viewer/commands/options.h"
#include "viewer/export.h"
#include "viewer/html_view.h"
#include "viewer/profile_inputs.h"
#include "viewer/run_configuration.h"
#include "viewer/scaling.h"
#include "viewer/summary_reader.h"

namespace omprof::viewer::commands {

namespace {

// What both commands take: the profiles, which of them, the stacks and the filter.
struct Merge {
  std::vector<std::string> files;
  std::string view = "user";
  int rank = -1;
  FilterOptions filter;
};

// Calls `add` with each profile's filtered model; MPI job summaries are skipped (told when
// `tell_summaries`). Returns 2 when two profiles are of different runs (told), else the status.
int merge_models(const Merge& m, const char* command, bool tell_summaries,
                 const std::function<void(const format::Profile&, const Model&)>& add) {
  omp::View view = omp::View::kUser;
  omp::parse_view(m.view, view);
  const SampleFilter filter(m.filter);
  int status = 0;
  std::vector<std::string> files;
  for (const std::string& f : expand_profile_arguments(m.files, status)) {
    if (!is_summary_path(f)) {
      files.push_back(f);
    } else if (tell_summaries) {
      std::cerr << "omprof: " << f << ": an MPI job summary, not a profile; left out\n";
      status = 1;
    }
  }
  SymbolCache symbols;
  MergeGuard guard;
  bool refused = false;
  for_each_profile(files, symbols, status, [&](const format::Profile& p) {
    if (refused || (m.rank >= 0 && p.header.mpi_rank() != m.rank)) return;
    if (std::string error; !guard.admit(p, error)) {
      std::cerr << "omprof: " << command << ": " << error << "\n";
      refused = true;
      return;
    }
    Model model = build_model(p, view);
    apply_filter(model, filter);
    add(p, model);
  });
  return refused ? 2 : status;
}

struct ExportCommand : Merge {
  std::string format = "pprof", output = "-";
  bool state_leaf = false;
};

int run_export(const ExportCommand& e) {
  ExportOptions opt;
  parse_export_format(e.format, opt.format);
  omp::parse_view(e.view, opt.view);
  opt.state_leaf = e.state_leaf;
  const bool to_stdout = e.output == "-";
  if (to_stdout && opt.format == ExportFormat::kPprof && isatty(1)) {
    std::cerr << "omprof: export: pprof output is binary; give -o FILE\n";
    return 2;
  }
  if (!valid_filter(e.filter)) return 2;
  auto exporter = make_exporter(opt);
  size_t exported = 0;
  const int status = merge_models(e, "export", true, [&](const auto& p, const auto& m) {
    exporter->add(p, m);
    ++exported;
  });
  if (status == 2) return status;
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

struct ViewCommand : Merge {
  std::string output = "omprof.html";
};

// Whether the arguments are runs of one program at different sizes (a scaling series): every
// one a directory, the first profile of each the same program, not all of one configuration.
bool is_scaling_series(const std::vector<std::string>& args) {
  if (args.size() < 2) return false;
  std::set<std::pair<int32_t, uint32_t>> sizes;
  std::string program;
  SymbolCache symbols;
  for (const std::string& a : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(a, ec)) return false;
    int status = 0;
    const std::vector<std::string> files = expand_profile_arguments({a}, status);
    const auto first = std::find_if(files.begin(), files.end(),
                                    [](const std::string& f) { return !is_summary_path(f); });
    if (status || first == files.end()) return false;
    try {
      const RunConfiguration c = configuration_of(load_profile(*first, symbols));
      if (!program.empty() && c.program != program) return false;
      program = c.program;
      sizes.insert({c.mpi_size, c.max_team});
    } catch (const format::ProfileError&) {
      return false;  // the merge tells it
    }
  }
  return sizes.size() > 1;
}

// The scaling page: the analysis, the flame graph of the largest run's losses against the
// smallest, and the largest run's own tables.
int run_scaling_view(const ViewCommand& v) {
  std::vector<ScalingRun> runs;
  if (!read_scaling_series(v.files, "", "view", runs)) return 1;
  if (const std::string problem = series_problem(runs, ""); !problem.empty()) {
    std::cerr << "omprof: view: " << problem << "\n";
    return 1;
  }
  const ScalingAnalysis a = analyse_scaling(std::move(runs), ScalingKind::kStrong, SIZE_MAX);
  size_t largest = 0;
  for (size_t i = 0; i < a.runs.size(); ++i)
    if (a.runs[i].cores() >= a.runs[largest].cores() && i != a.reference) largest = i;
  const ScalingRun &run = a.runs[largest], &ref = a.runs[a.reference];
  HtmlView page;
  std::vector<ScalingRun> largest_last = a.runs;  // advise() advises the last run
  std::rotate(largest_last.begin() + long(largest), largest_last.begin() + long(largest) + 1,
              largest_last.end());
  page.set_advice(advice_json(advise(largest_last, 0.01)));
  page.set_scaling(scaling_page_json(a, largest),
                   losses(run.paths, ref.paths, run, ref, ideal_scale(run, ref, a.kind)));
  ViewCommand largest_run = v;
  largest_run.files = {run.input};
  const int status = merge_models(largest_run, "view", false,
                                  [&](const auto& p, const auto& m) { page.add(p, m); });
  if (status) return status;
  const int written =
      write_file_atomically(v.output, "view", [&](std::ostream& out) { page.write(out); });
  if (written) return written;
  std::cerr << "omprof: wrote " << v.output << " (scaling of " << a.runs.size() << " runs)\n";
  return 0;
}

// The advice on one run (the page's first section): only for one argument, unfiltered, whose
// profiles were all read already (nothing is told twice).
void add_advice(const ViewCommand& v, HtmlView& page) {
  if (v.files.size() != 1 || v.rank >= 0 || !v.filter.empty()) return;
  int status = 0;
  std::vector<std::string> files;
  for (const std::string& f : expand_profile_arguments(v.files, status))
    if (!is_summary_path(f)) files.push_back(f);
  if (status || files.empty()) return;
  SymbolCache symbols;
  ScalingRun run;
  std::string error;
  try {
    if (!read_scaling_run(v.files[0], files, "", symbols, run, error)) return;
  } catch (const format::ProfileError&) {
    return;
  }
  page.set_advice(advice_json(advise({run}, 0.01)));
}

int run_view(const ViewCommand& v) {
  if (!valid_filter(v.filter)) return 2;
  if (v.rank < 0 && v.filter.empty() && is_scaling_series(v.files)) return run_scaling_view(v);
  HtmlView page;
  // The job summary is skipped silently: the rank profiles hold it all.
  const int status =
      merge_models(v, "view", false, [&](const auto& p, const auto& m) { page.add(p, m); });
  if (status == 2) return status;
  if (!page.profiles()) {
    std::cerr << "omprof: view: no profile to show\n";
    return 1;
  }
  if (status == 0) add_advice(v, page);
  const int written =
      write_file_atomically(v.output, "view", [&](std::ostream& out) { page.write(out); });
  if (written) return written;
  std::cerr << "omprof: wrote " << v.output << " (" << page.profiles() << " profile"
            << (page.profiles() == 1 ? "" : "s") << ")\n";
  return status;
}

}  // namespace

Command add_export(CLI::App& app) {
  auto e = std::make_shared<ExportCommand>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write profiles in another tool's format (several files or ranks merge)");
  cmd->add_option("profiles", e->files, "Profile files, or directories of them")->required();
  cmd->add_option("--format", e->format,
                  "pprof (gzip'd profile.proto for go tool pprof), folded (flamegraph.pl), "
                  "speedscope (JSON, one profile per rank and thread), perfetto (the timeline, "
                  "Chrome trace-event JSON) or speedscope-timeline (the timeline, speedscope's "
                  "evented profiles)")
      ->check(CLI::IsMember({"pprof", "folded", "speedscope", "perfetto", "speedscope-timeline"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", e->output, "Output file ('-': standard output)")
      ->capture_default_str();
  add_view_option(cmd, e->view);
  cmd->add_flag("--state-leaf", e->state_leaf,
                "folded, speedscope: add the OpenMP state as a leaf frame ([wait_barrier])");
  cmd->add_option("--rank", e->rank, "Of several rank profiles, export this rank's alone")
      ->check(CLI::NonNegativeNumber);
  add_filter_options(cmd, e->filter);
  return {cmd, [e] { return run_export(*e); }};
}

Command add_view(CLI::App& app) {
  auto v = std::make_shared<ViewCommand>();
  CLI::App* cmd = app.add_subcommand(
      "view",
      "Write one self-contained HTML page (no network needed): an interactive flame graph "
      "coloured by work and wait, regions, threads, ranks, states");
  cmd->add_option("profiles", v->files, "Profile files, or directories of them")->required();
  cmd->add_option("-o,--output", v->output, "The HTML file to write")->capture_default_str();
  add_view_option(cmd, v->view);
  cmd->add_option("--rank", v->rank, "Of several rank profiles, this rank's alone")
      ->check(CLI::NonNegativeNumber);
  add_filter_options(cmd, v->filter);
  return {cmd, [v] { return run_view(*v); }};
}

}  // namespace omprof::viewer::commands
