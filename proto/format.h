// The profile format's constants, in one place for the collector's encoder, the reader, the
// tests and the fuzzer (the schema is omprof.proto, its field numbers fields.h; the layout is
// documented in docs/format.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace omprof::format {

// The first 8 bytes of every profile.
constexpr std::string_view kMagic("\x89OMPROF\n", 8);

// The first 8 bytes of an in-job MPI summary (`.ompsum`: one JobSummary message after them).
constexpr std::string_view kSummaryMagic("\x89OMPSUM\n", 8);
constexpr uint32_t kSummaryMajor = 1;
constexpr uint32_t kSummaryMinor = 1;  // 1.1: setup_sum_ns, setup_max_ns

// The version the collector writes. Readers accept every 1.x file: fields are only added.
// 1.1: explicit regions; 1.2: exact OpenMP waits; 1.3: sampling coverage; 1.4: the ending,
// recovered profiles; 1.5: MPI; 1.6: the POP window (Header.mpi_init_end_ns,
// mpi_finalize_start_ns), exact CPU time of MPI calls (Sample.cpu_ns); 1.7: sampled taskwaits;
// 1.8: state 0x1002 (in taskwait) only where the taskwait can wait; 1.9: task records
// (ForkRecord.task, Sample.task_origin_id); 1.10: clock fallback; 1.11: libgomp off-CPU waits;
// 1.12: the wall clock (Header.wall_clock, wall_clock_drift_ns, wall_clock_note); 1.13:
// Thread.short_stack_samples; 1.14: parallel-region wall time (ForkRecord.wall_ns,
// Thread.parallel_wall_ns); 1.15: Thread.unmeasured_waits; 1.16: counters; 1.17: the timeline
// (Thread.interval); 1.18: measured waits in the timeline (Interval.measured_ns); 1.19: the
// counters' enabled and running times (Thread.counter_enabled_ns, counter_running_ns),
// Trailer.threads_before_start; 1.20: how each state was measured (Header.state_measurement,
// wrapper_states); 1.21: why the sampling clock is this one (Header.clock_choice); 1.22: where
// a thread's time off the CPU fell (Sample.off_cpu_seen_ns) (docs/format.md).
constexpr uint32_t kMajor = 1;
constexpr uint32_t kMinor = 22;

// Header.clock (enum Clock).
enum ClockCode : uint32_t { kClockCpu = 1, kClockWall = 2, kClockTask = 3 };

}  // namespace omprof::format
