// `omprof scaling RUN1 RUN2 ...`: each run what one `omprof run -o DIR` wrote (every rank of a
// job); the metric tree of each configuration, then where each larger one loses time against
// the reference (docs/semantics.md "Scaling").
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "viewer/commands/commands.h"
#include "viewer/commands/options.h"
#include "viewer/profile_inputs.h"
#include "viewer/report_output.h"
#include "viewer/scaling.h"
#include "viewer/scaling_counters.h"
#include "viewer/summary_reader.h"
#include "viewer/symbolize.h"

namespace omprof::viewer::commands {

namespace {

struct ScalingCommand {
  std::vector<std::string> inputs;
  std::string format = "text", colour = "auto", region;
  bool weak = false;
  size_t reference = 0;  // 1-based; 0: the smallest configuration
  size_t top = 15, width = 0;
  const CLI::Option* width_option = nullptr;
};

bool read_runs(const ScalingCommand& c, std::vector<ScalingRun>& runs) {
  if (!read_scaling_series(c.inputs, c.region, "scaling", runs)) return false;
  const std::string problem = series_problem(runs, c.region);
  if (!problem.empty()) std::cerr << "omprof: scaling: " << problem << "\n";
  return problem.empty();
}

// Call paths read root first with " > " in text; CSV and JSON keep the folded ";".
std::vector<Loss> readable(std::vector<Loss> rows, bool text) {
  if (!text) return rows;
  for (Loss& l : rows) {
    std::string k;
    for (char ch : l.key) k += ch == ';' ? std::string(" > ") : std::string(1, ch);
    l.key = k;
  }
  return rows;
}

void print_losses(ReportOutput& out, const ScalingCommand& c, const ScalingAnalysis& a, size_t i) {
  const ScalingRun &run = a.runs[i], &ref = a.runs[a.reference];
  const double scale = ideal_scale(run, ref, a.kind);
  const double capacity = run.all.total();
  const Loss whole = whole_loss(a, i);
  const std::string& label = a.labels[i];
  out.text_out() << fmt::format(
      "\n{} against {}: {:+.3f} thread-s ({:+.1f}% of its {:.3f} thread-s) over the {}\n", label,
      a.labels[a.reference], whole.total() * 1e-9, 100 * whole.total() / capacity, capacity * 1e-9,
      a.kind == ScalingKind::kStrong ? "reference's thread time (strong scaling)"
                                     : "reference's thread time per core (weak scaling)");
  const bool text = out.text();
  const size_t top = text ? c.top : 0;
  out.section(label + ".total", "Loss by class (thread-s; + is time lost):",
              loss_table({whole}, capacity, 0, "whole", out.format()));
  out.section(label + ".paths", fmt::format("Call paths by loss (top {}):", c.top),
              loss_table(readable(losses(run.paths, ref.paths, run, ref, scale), text), capacity,
                         top, "path", out.format()));
  out.section(label + ".parallel_regions", "Parallel regions by loss:",
              loss_table(losses(run.parallel_regions, ref.parallel_regions, run, ref, scale),
                         capacity, top, "parallel_region", out.format()));
  if (run.regions.size() > 1 || ref.regions.size() > 1)
    out.section(label + ".regions", "Explicit regions by loss (self: nested regions apart):",
                loss_table(losses(run.regions, ref.regions, run, ref, scale), capacity, top,
                           "region", out.format()));
}

int run(ScalingCommand& c) {
  std::vector<ScalingRun> runs;
  if (!read_runs(c, runs)) return 1;
  if (c.reference > runs.size()) {
    std::cerr << "omprof: scaling: --reference " << c.reference << ": there are only "
              << runs.size() << " runs\n";
    return 2;
  }
  const ScalingAnalysis a =
      analyse_scaling(std::move(runs), c.weak ? ScalingKind::kWeak : ScalingKind::kStrong,
                      c.reference ? c.reference - 1 : SIZE_MAX);
  const Format format = parse_format(c.format);
  ReportOutput out(std::cout, format, c.width_option->count() ? c.width : terminal_width(),
                   use_colour(c.colour));
  const ScalingRun& ref = a.runs[a.reference];
  out.text_out() << fmt::format("Scaling ({}): {} runs, reference {} ({}){}\n",
                                c.weak ? "weak" : "strong", a.runs.size(), a.labels[a.reference],
                                ref.input,
                                c.region.empty() ? "" : ", inside explicit region " + c.region);
  out.value("kind", c.weak ? "weak" : "strong");
  out.value("reference", ref.input);
  if (!c.region.empty()) out.value("region", c.region);
  out.section("runs", "Runs:", runs_table(a.runs, a.trees));
  out.section("metrics",
              "Metric tree (POP, hybrid, multiplicative; ± one standard error from sampling):",
              metric_table(a.runs, a.trees, format));
  if (!series_events(a).empty())
    out.section("counters",
                fmt::format("Counter events (--counters, every rank's threads{}; scaling: the "
                            "reference's count over the run's{}, below 1 when the run needs more):",
                            c.region.empty() ? "" : ", whole runs", c.weak ? ", per core" : ""),
                counters_table(a));
  for (size_t i = 0; i < a.runs.size(); ++i)
    if (i != a.reference) print_losses(out, c, a, i);
  out.finish();
  return 0;
}

}  // namespace

Command add_scaling(CLI::App& app) {
  auto c = std::make_shared<ScalingCommand>();
  CLI::App* cmd = app.add_subcommand(
      "scaling", "Compare runs at several thread and rank counts: where efficiency goes");
  cmd->add_option("runs", c->inputs, "Runs: each a directory omprof run -o wrote (or a profile)")
      ->required();
  cmd->add_flag("--weak", c->weak, "Weak scaling: the problem grows with ranks x threads");
  cmd->add_option("--reference", c->reference,
                  "The reference run, by position (default: the "
                  "smallest configuration)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--region", c->region,
                  "Analyse only the time inside explicit regions of this name");
  add_format_options(cmd, c->format, "text, csv or json");
  cmd->add_option("--top", c->top, "Text: rows of each loss table (CSV, JSON: all)")
      ->check(kCount)
      ->capture_default_str();
  c->width_option = cmd->add_option("--width", c->width,
                                    "Text: fit lines to this many columns (0: full names; "
                                    "default: the terminal's width, else 0)");
  cmd->add_option("--color", c->colour,
                  "Text: colours: auto (a terminal without NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  return {cmd, [c] { return run(*c); }};
}

}  // namespace omprof::viewer::commands
