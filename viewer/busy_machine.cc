#include "viewer/busy_machine.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "omp/states.h"

namespace omprof::viewer {

namespace {
constexpr double kBusyShare = 0.05;  // of the threads' lifetimes spent waiting for a CPU
}

BusyMachine busy_machine(const Model& m) {
  const format::Profile& p = *m.profile;
  BusyMachine b;
  b.known = p.header.cpus_online() > 0;
  if (!b.known) return b;
  std::map<uint32_t, uint64_t> waits;  // OpenMP waits (not idle) per thread
  for (const ViewSample& s : m.samples)
    if (omp::is_wait(s.state) && !omp::is_idle(s.state) && !omp::is_mpi(s.state))
      waits[s.thread] += s.weight_ns;
  uint64_t omp_delay = 0;
  for (const auto& [index, t] : p.threads) {
    if (t.mpi_library_thread()) continue;
    const uint64_t end = t.end_ns() ? t.end_ns() : p.header.duration_ns();
    b.thread_life_ns += end > t.start_ns() ? end - t.start_ns() : 0;
    b.run_delay_ns += t.run_delay_ns();
    b.involuntary += t.involuntary_switches();
    if (t.is_omp_thread()) {
      ++b.threads;
      omp_delay += t.run_delay_ns();
    }
  }
  for (const auto& [index, t] : p.threads) {
    if (!t.is_omp_thread() || t.mpi_library_thread()) continue;
    const uint64_t wait = waits.count(index) ? waits[index] : 0;
    b.omp_wait_ns += wait;
    b.preemption_bound_ns += std::min(wait, omp_delay - std::min(omp_delay, t.run_delay_ns()));
  }
  const uint32_t cpus = p.header.cpus_allowed() ? p.header.cpus_allowed() : p.header.cpus_online();
  b.busy = double(b.run_delay_ns) > kBusyShare * double(b.thread_life_ns) || b.threads > cpus;
  return b;
}

std::string machine_text(const format::Profile& p, const BusyMachine& b) {
  if (!b.known) return "";
  const auto& h = p.header;
  return fmt::format(
      "{} CPUs ({} allowed), load {:.2f} at the end, steal {:.1f}%; the threads waited {:.3f} s "
      "for a CPU ({:.1f}% of their lifetime), {} involuntary switches",
      h.cpus_online(), h.cpus_allowed(), double(h.load_avg_milli()) / 1000.0,
      double(h.steal_permille()) / 10.0, double(b.run_delay_ns) * 1e-9,
      b.thread_life_ns ? 100.0 * double(b.run_delay_ns) / double(b.thread_life_ns) : 0.0,
      b.involuntary);
}

std::string busy_warning(const format::Profile& p, const BusyMachine& b) {
  if (!b.known || !b.busy) return "";
  const uint32_t cpus = p.header.cpus_allowed() ? p.header.cpus_allowed() : p.header.cpus_online();
  std::string why = b.threads > cpus
                        ? fmt::format("{} OpenMP threads on {} CPUs", b.threads, cpus)
                        : fmt::format("the threads waited {:.1f}% of their lifetime for a CPU",
                                      100.0 * double(b.run_delay_ns) / double(b.thread_life_ns));
  return fmt::format(
      "the machine was busy ({}): up to {:.3f} s of the {:.3f} s of OpenMP waits can be team "
      "members waiting for a preempted one, not imbalance (run delay per thread: --threads)",
      why, double(b.preemption_bound_ns) * 1e-9, double(b.omp_wait_ns) * 1e-9);
}

}  // namespace omprof::viewer
