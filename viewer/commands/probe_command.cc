// `probe-counters NAME...`, run by the launcher before the program starts when --counters names
// libpfm4 events or PAPI presets (hidden from the user's help): prints each event's perf_event
// encoding, one line each ("type/config/config1/config2", hex), and exits 0; or one line naming
// the first that cannot be counted and why, and exits 2.
#include <iostream>
#include <memory>

#include "proto/counter_events.h"
#include "viewer/commands/commands.h"
#include "viewer/counter_encoding.h"

namespace omprof::viewer::commands {

Command add_probe_counters(CLI::App& app) {
  auto names = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("probe-counters", "");
  cmd->group("");  // the launcher's, not the user's
  cmd->add_option("names", *names)->required();
  return {cmd, [names] {
            std::string lines;
            for (const std::string& name : *names) {
              counters::EventSpec e;
              e.name = name;
              std::string why;
              if (!encode_counter_event(name, e.perf, why)) {
                std::cerr << "omprof: cannot count " << name << ": " << why << "\n";
                return 2;
              }
              lines += counters::join_encodings({e}) + "\n";
            }
            std::cout << lines;
            return 0;
          }};
}

}  // namespace omprof::viewer::commands
