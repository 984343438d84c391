// Sampling coverage: how much of the sampled clock's time got samples, and why not, from the
// per-thread numbers the format records (ThreadProfile fields 18-20). One definition, used by
// the collector (its end-of-run warning) and by the viewer (the report header). Header-only and
// free of protobuf, so that both can include it.
//
// Stratified sampling gives every whole period of a thread's armed clock exactly one sample, so
// a whole period without one is a certain loss. The last, partial period of a thread gets a
// sample with probability equal to the fraction of it that elapsed: summed over many short
// threads, a count far below that expectation is a loss too (a timer that acts on kernel ticks
// misses threads that end before the next tick).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace omprof::format {

constexpr uint32_t kLostSignalBlocked = 1;  // ThreadProfile.sampling_lost bits
constexpr uint32_t kLostClockFdClosed = 2;

struct Coverage {
  uint64_t period_ns = 0;
  uint64_t armed_ns = 0;        // all threads' armed clock time
  uint64_t lost_periods = 0;    // whole periods without a sample
  uint32_t threads_losing = 0;  // threads with lost whole periods
  uint32_t threads_blocked = 0, threads_fd_closed = 0;
  double partial_expected = 0, partial_variance = 0;
  uint64_t partial_sampled = 0;

  void add_thread(uint64_t armed, uint64_t periods_sampled, uint32_t lost_reason) {
    if (period_ns == 0) return;
    armed_ns += armed;
    const uint64_t whole = armed / period_ns;
    const double fraction = double(armed % period_ns) / double(period_ns);
    partial_expected += fraction;
    partial_variance += fraction * (1 - fraction);
    if (periods_sampled < whole) {
      lost_periods += whole - periods_sampled;
      ++threads_losing;
    } else {
      partial_sampled += periods_sampled - whole;
    }
    if (lost_reason & kLostSignalBlocked) ++threads_blocked;
    if (lost_reason & kLostClockFdClosed) ++threads_fd_closed;
  }

  // Partial periods missing beyond four standard errors of their expected count.
  double partial_deficit() const {
    const double d = partial_expected - double(partial_sampled) - 4 * std::sqrt(partial_variance);
    return d > 0 ? d : 0;
  }
  double missing_ns() const {
    return (double(lost_periods) + partial_deficit()) * double(period_ns);
  }
  // Worth telling: a known cause, or more than 2% of the clock (and more than two periods).
  bool incomplete() const {
    if (threads_blocked || threads_fd_closed) return true;
    const double missing = missing_ns();
    return missing > 0.02 * double(armed_ns) && missing > 2.0 * double(period_ns);
  }

  // One line: how much is missing and the causes known.
  std::string describe() const {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.3f s of %.3f s of sampled clock time got no samples",
                  missing_ns() * 1e-9, double(armed_ns) * 1e-9);
    std::string s = buf;
    std::string causes;
    auto cause = [&](const std::string& c) { causes += (causes.empty() ? "" : "; ") + c; };
    if (threads_blocked)
      cause("the profiling signal was blocked in " + std::to_string(threads_blocked) +
            " thread(s)");
    if (threads_fd_closed)
      cause("the program closed the task-clock descriptor of " + std::to_string(threads_fd_closed) +
            " thread(s)");
    if (partial_deficit() > 0) {
      std::snprintf(buf, sizeof buf,
                    "short threads' last periods got %llu samples, %.0f expected: the timer "
                    "signals late (try --clock task)",
                    static_cast<unsigned long long>(partial_sampled), partial_expected);
      cause(buf);
    }
    if (causes.empty() && lost_periods)
      cause("signals not delivered in " + std::to_string(threads_losing) + " thread(s)");
    return causes.empty() ? s : s + " (" + causes + ")";
  }
};

}  // namespace omprof::format
