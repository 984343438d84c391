// `omprof top DIR`: what a running job has measured so far (viewer/live_view.h), refreshed every
// --every seconds until every process of the job has ended, or once (--once). Reads the files
// `omprof run -o DIR` writes; never signals, locks or writes anything of the job's. The launcher
// starts it in a session of its own (launcher/own_session.h).
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "viewer/commands/commands.h"
#include "viewer/json_text.h"
#include "viewer/live_view.h"

namespace omprof::viewer::commands {

namespace {

struct TopCommand {
  std::string dir;
  double every_s = 1;
  bool once = false;
  std::string format = "text";
  size_t top = 5;
};

int run(const TopCommand& c) {
  const bool redraw = c.format == "text" && !c.once && isatty(1);
  LiveReader reader;  // one for every snapshot: their addresses and journals repeat
  for (;;) {
    nlohmann::json s;
    std::string error;
    if (!live_snapshot(c.dir, c.top, s, error, reader)) {
      std::cerr << "omprof: top: " << error << "\n";
      if (c.once) return 1;
    } else if (c.format == "json") {
      std::cout << json_text(s) << std::endl;  // one line per snapshot, as it is taken
    } else {
      if (redraw) std::cout << "\x1b[H\x1b[2J";
      write_live_text(std::cout, s);
      std::cout << std::endl;
    }
    if (c.once || (s.is_object() && s.value("running_processes", size_t(0)) == 0)) return 0;
    std::this_thread::sleep_for(std::chrono::duration<double>(c.every_s));
  }
}

}  // namespace

Command add_top(CLI::App& app) {
  auto c = std::make_shared<TopCommand>();
  CLI::App* cmd = app.add_subcommand(
      "top", "A live view of a running job: per thread and rank, what it does now and so far");
  cmd->add_option("dir", c->dir, "The directory omprof run -o writes")->required();
  cmd->add_option("--every", c->every_s, "Seconds between snapshots")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--once", c->once, "Print one snapshot and end");
  cmd->add_option("--format", c->format, "text, or json (one line per snapshot)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--top", c->top, "Rows in the region, function and rank tables")
      ->capture_default_str();
  return {cmd, [c] { return run(*c); }};
}

}  // namespace omprof::viewer::commands
