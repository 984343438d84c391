#include "viewer/run_configuration.h"

#include <fmt/format.h>

#include <algorithm>

#include "proto/text.h"

namespace omprof::viewer {

RunConfiguration configuration_of(const format::Profile& p) {
  RunConfiguration c;
  c.program = p.header.program();
  c.argv.assign(p.header.argv().begin(), p.header.argv().end());
  c.mpi_size = p.header.mpi_size();
  for (const auto& f : p.forks)
    for (uint32_t size : f.team_sizes()) c.max_team = std::max(c.max_team, size);
  // A profile read from a running or dead process's journal has no team sizes (they are kept
  // in memory): its OpenMP threads, then.
  if (c.max_team == 0 && !p.forks.empty())
    for (const auto& [index, t] : p.threads)
      if (t.is_omp_thread() && !t.mpi_library_thread()) ++c.max_team;
  return c;
}

namespace {
std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return text::printable(out);
}
}  // namespace

std::string configuration_difference(const RunConfiguration& a, const RunConfiguration& b) {
  if (a.program != b.program)
    return fmt::format("the program: {} against {}", text::printable(a.program),
                       text::printable(b.program));
  if (a.argv != b.argv)
    return fmt::format("the command: '{}' against '{}'", joined(a.argv), joined(b.argv));
  if (a.mpi_size != b.mpi_size)
    return fmt::format("the job size: {} against {} ranks", a.mpi_size, b.mpi_size);
  // A run that forked no region (a rank that stayed serial) says nothing about its teams.
  if (a.max_team && b.max_team && a.max_team != b.max_team)
    return fmt::format("the OpenMP teams: up to {} against up to {} threads", a.max_team,
                       b.max_team);
  return "";
}

bool MergeGuard::admit(const format::Profile& p, std::string& error) {
  const RunConfiguration c = configuration_of(p);
  if (first_) {
    first_ = false;
    config_ = c;
    first_path_ = p.path;
    return true;
  }
  const std::string difference = configuration_difference(config_, c);
  if (difference.empty()) return true;
  error = fmt::format(
      "{} and {} are runs of different configurations ({}): merged, their times would be summed "
      "into one; compare them with 'omprof diff', or give them one at a time",
      text::printable(first_path_), text::printable(p.path), difference);
  return false;
}

}  // namespace omprof::viewer
