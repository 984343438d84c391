// `probe-counters NAME...`, run by the launcher before the program starts when --counters
// names PAPI events (hidden from the user's help): exit 0 if PAPI can count them all, else one
// line naming the first that cannot be counted and why, and exit 2.
#include <iostream>
#include <memory>

#include "viewer/commands/commands.h"
#include "viewer/papi_probe.h"

namespace omprof::viewer::commands {

Command add_probe_counters(CLI::App& app) {
  auto names = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("probe-counters", "");
  cmd->group("");  // the launcher's, not the user's
  cmd->add_option("names", *names)->required();
  return {cmd, [names] {
            for (const std::string& name : *names)
              if (const std::string why = papi_cannot_count(name); !why.empty()) {
                std::cerr << "omprof: cannot count " << name << ": " << why << "\n";
                return 2;
              }
            return 0;
          }};
}

}  // namespace omprof::viewer::commands
