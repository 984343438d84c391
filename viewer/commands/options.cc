#include "viewer/commands/options.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "proto/text.h"

namespace omprof::viewer::commands {

const CLI::Validator kCount(
    [](std::string& s) {
      const bool ok =
          !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos;
      return ok ? std::string() : "'" + s + "' is not a whole number of rows (0: all)";
    },
    "N");

const CLI::Validator kPercent(
    [](std::string& s) {
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      const bool ok =
          !s.empty() && end == s.c_str() + s.size() && std::isfinite(v) && v >= 0 && v <= 100;
      return ok ? std::string() : "'" + s + "' is not a number from 0 to 100";
    },
    "PERCENT");

void add_filter_options(CLI::App* cmd, FilterOptions& f) {
  cmd->add_option("--thread", f.threads,
                  "Count only this thread's samples (the threads view's index; repeatable)");
  cmd->add_option("--state", f.states,
                  "Count only samples in this state: work, wait, overhead, or a state's name "
                  "(wait_barrier_implicit_parallel, mpi, ...; --states lists them; repeatable)");
  cmd->add_option("--region", f.regions,
                  "Count only samples in this explicit region (a name, or a path outer/inner; "
                  "nested regions included; repeatable)");
  cmd->add_option("--focus", f.focus,
                  "Count only samples with a frame whose name matches this regular expression");
  cmd->add_option("--ignore", f.ignore,
                  "Leave out samples with a frame whose name matches this regular expression");
}

bool valid_filter(const FilterOptions& f) {
  try {
    SampleFilter check(f);
    return true;
  } catch (const FilterError& e) {
    std::cerr << "omprof: " << text::printable(e.what()) << "\n";
    return false;
  }
}

void add_view_option(CLI::App* cmd, std::string& view) {
  cmd->add_option("--view", view, "user, expert or machine stacks")
      ->check(CLI::IsMember({"user", "expert", "machine"}))
      ->capture_default_str();
}

void add_format_options(CLI::App* cmd, std::string& format, const std::string& help) {
  cmd->add_option("--format", format, help)
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  cmd->add_flag(
      "--csv", [&format](int64_t) { format = "csv"; }, "Same as --format csv");
  cmd->add_flag(
      "--json", [&format](int64_t) { format = "json"; }, "Same as --format json");
}

Format parse_format(const std::string& format) {
  return format == "csv" ? Format::kCsv : format == "json" ? Format::kJson : Format::kText;
}

size_t terminal_width() {
  winsize ws{};
  if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

bool use_colour(const std::string& choice) {
  if (choice == "always") return true;
  if (choice == "never") return false;
  const char* no_colour = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && !(no_colour && *no_colour);
}

}  // namespace omprof::viewer::commands
