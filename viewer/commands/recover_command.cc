// `recover --child PID --status S --end-ns N PID:JOURNAL...`, run by the launcher after the
// program ended (hidden from the user's help): exit 0 if a profile was written, 1 if none.
#include <cstdlib>
#include <memory>

#include "viewer/commands/commands.h"
#include "viewer/recover.h"

namespace omprof::viewer::commands {

namespace {

struct RecoverCommand {
  int64_t child = 0, status = 0;
  uint64_t end_ns = 0;
  std::vector<std::string> journals;
};

int run(const RecoverCommand& r) {
  std::vector<JournalOf> journals;
  for (const std::string& j : r.journals) {
    const size_t colon = j.find(':');
    if (colon == std::string::npos) continue;
    journals.push_back({pid_t(std::atol(j.substr(0, colon).c_str())), j.substr(colon + 1)});
  }
  const int written = recover_journals(journals, pid_t(r.child), int(r.status), r.end_ns);
  return written > 0 ? 0 : 1;
}

}  // namespace

Command add_recover(CLI::App& app) {
  auto r = std::make_shared<RecoverCommand>();
  CLI::App* cmd = app.add_subcommand("recover", "");
  cmd->group("");  // the launcher's, not the user's
  cmd->add_option("--child", r->child)->required();
  cmd->add_option("--status", r->status)->required();
  cmd->add_option("--end-ns", r->end_ns)->required();
  cmd->add_option("journals", r->journals);
  return {cmd, [r] { return run(*r); }};
}

}  // namespace omprof::viewer::commands
