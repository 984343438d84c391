// `omprof timeline RUN`: every thread's sampled time per interval of the run, by class of thread
// state (viewer/timeline.h), as text, CSV or JSON. A directory a running job writes is read from
// its journals: the timeline so far.
#include <iostream>
#include <memory>

#include "viewer/commands/commands.h"
#include "viewer/json_text.h"
#include "viewer/profile_inputs.h"
#include "viewer/timeline.h"

namespace omprof::viewer::commands {

namespace {

struct TimelineCommand {
  std::vector<std::string> inputs;
  std::string format = "text";
};

int run(const TimelineCommand& c) {
  int status = 0;
  const std::vector<std::string> files = expand_profile_arguments(c.inputs, status);
  if (status) return status;
  SymbolCache symbols;
  Timeline t;
  for_each_profile(files, symbols, status, [&](const format::Profile& p) {
    add_to_timeline(t, p, build_model(p, omp::View::kUser));
  });
  if (status) return status;
  finish_timeline(t);
  if (c.format == "json") {
    std::cout << json_text(timeline_json(t)) << "\n";
  } else if (c.format == "csv") {
    write_timeline_csv(std::cout, t);
  } else {
    write_timeline_text(std::cout, t);
  }
  return 0;
}

}  // namespace

Command add_timeline(CLI::App& app) {
  auto c = std::make_shared<TimelineCommand>();
  CLI::App* cmd = app.add_subcommand(
      "timeline", "The run as a time series: each thread's work and waits per interval");
  cmd->add_option("profiles", c->inputs,
                  "Profiles, or directories omprof run -o wrote (all ranks of a job)")
      ->required();
  cmd->add_option("--format", c->format, "text, csv or json")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  return {cmd, [c] { return run(*c); }};
}

}  // namespace omprof::viewer::commands
