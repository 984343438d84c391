// `omprof advise RUN [RUN...]`: findings on the last run, ranked by the wall time they would
// save (viewer/advice.h); the runs before it, if any, are a scaling series it is compared with.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "viewer/advice.h"
#include "viewer/commands/commands.h"
#include "viewer/commands/options.h"
#include "viewer/json_text.h"
#include "viewer/scaling.h"

namespace omprof::viewer::commands {

namespace {

struct AdviseCommand {
  std::vector<std::string> inputs;
  std::string format = "text";
  double min_percent = 1;
};

void write_text(std::ostream& out, const Advice& a) {
  out << fmt::format("Advice for {} ({} rank{} x {} thread{}, {:.3f} s)", a.input, a.ranks,
                     a.ranks == 1 ? "" : "s", a.threads, a.threads == 1 ? "" : "s",
                     a.elapsed_ns * 1e-9);
  if (a.findings.empty()) {
    out << ": " << a.note << ".\n";
  } else {
    out << ": findings by the wall time they would save\n";
  }
  for (const std::string& w : a.warnings) out << "WARNING: " << w << "\n";
  int n = 0;
  for (const Finding& f : a.findings) {
    std::string kind = f.kind;
    std::replace(kind.begin(), kind.end(), '_', ' ');
    out << fmt::format(
        "\n{:2}. {} in {}{}\n", ++n, kind, f.where,
        f.place.empty() || f.where.find(f.place) != std::string::npos ? "" : " (" + f.place + ")");
    out << fmt::format("    gain {:.3f} s ({:.1f}% of the run) +- {:.3f} s{}\n", f.gain_ns * 1e-9,
                       100 * f.gain_ns / a.elapsed_ns, f.error_ns * 1e-9,
                       f.significant ? "" : "  (not significant: within 2 errors of zero)");
    out << "    evidence: " << f.evidence << "\n";
    out << "    try: " << f.advice << "\n";
  }
}

int run(const AdviseCommand& c) {
  std::vector<ScalingRun> runs;
  if (!read_scaling_series(c.inputs, "", "advise", runs)) return 1;
  if (runs.size() > 1) {
    if (const std::string problem = series_problem(runs, ""); !problem.empty()) {
      std::cerr << "omprof: advise: " << problem << "\n";
      return 1;
    }
  }
  const Advice a = advise(runs, c.min_percent / 100);
  if (c.format == "json") {
    std::cout << json_text(advice_json(a), 2) << "\n";
  } else {
    write_text(std::cout, a);
  }
  return 0;
}

}  // namespace

Command add_advise(CLI::App& app) {
  auto c = std::make_shared<AdviseCommand>();
  CLI::App* cmd = app.add_subcommand(
      "advise", "What to fix first: findings ranked by the wall time they would save");
  cmd->add_option("runs", c->inputs,
                  "A run (a directory omprof run -o wrote, or a profile); with several, a "
                  "scaling series and the advice is on the last")
      ->required();
  cmd->add_option("--format", c->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_flag_callback(
      "--json", [c] { c->format = "json"; }, "The same as --format json");
  cmd->add_option("--min-percent", c->min_percent,
                  "Leave out findings that would save less than this share of the run")
      ->check(kPercent)
      ->capture_default_str();
  return {cmd, [c] { return run(*c); }};
}

}  // namespace omprof::viewer::commands
