// The viewer's commands (`omprof report|export|view|diff`, and the launcher's hidden
// `recover`): each one adds its options to the command line and returns what runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace omprof::viewer::commands {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // the exit status
};

Command add_report(CLI::App& app);
Command add_export(CLI::App& app);
Command add_view(CLI::App& app);
Command add_diff(CLI::App& app);
Command add_scaling(CLI::App& app);
Command add_advise(CLI::App& app);
Command add_timeline(CLI::App& app);
Command add_top(CLI::App& app);
Command add_recover(CLI::App& app);
Command add_probe_counters(CLI::App& app);

}  // namespace omprof::viewer::commands
