// `omprof export PROFILE... --format pprof|folded|speedscope` and `omprof view PROFILE... -o
// page.html`: the profiles merged into one file (runs of different configurations refused).
#include <unistd.h>

#include <iostream>
#include <memory>

#include "viewer/commands/commands.h"
#include "viewer/commands/options.h"
#include "viewer/export.h"
#include "viewer/html_view.h"
#include "viewer/profile_inputs.h"
#include "viewer/run_configuration.h"
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

int run_view(const ViewCommand& v) {
  if (!valid_filter(v.filter)) return 2;
  HtmlView page;
  // The job summary is skipped silently: the rank profiles hold it all.
  const int status =
      merge_models(v, "view", false, [&](const auto& p, const auto& m) { page.add(p, m); });
  if (status == 2) return status;
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

}  // namespace

Command add_export(CLI::App& app) {
  auto e = std::make_shared<ExportCommand>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write profiles in another tool's format (several files or ranks merge)");
  cmd->add_option("profiles", e->files, "Profile files, or directories of them")->required();
  cmd->add_option("--format", e->format,
                  "pprof (gzip'd profile.proto for go tool pprof), folded (flamegraph.pl) or "
                  "speedscope (JSON, one profile per rank and thread)")
      ->check(CLI::IsMember({"pprof", "folded", "speedscope"}))
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
