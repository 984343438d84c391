// The contract between `omprof run` (launcher/launcher.cc) and the collector (collector/config.cc):
// the options the launcher passes to the collector through the environment, each with its
// command-line flag, variable, default, range and help. Both sides read this table, so a
// default or a range is written once. docs/usage.md lists the variables.
#pragma once

#include <cstdint>
#include <string>

namespace omprof::options {

struct Number {
  const char* flag;  // of `omprof run`; nullptr: environment only
  const char* env;
  uint64_t default_value;
  uint64_t min, max;
  const char* help;
};

inline constexpr Number kRate{"--rate", "OMPROF_RATE", 200,
                              1,        10000,         "Samples per second per thread"};
inline constexpr Number kMaxDepth{"--max-depth", "OMPROF_MAX_DEPTH",   256, 4,
                                  4096,          "Maximum stack depth"};
inline constexpr Number kMaxContexts{"--max-contexts",
                                     "OMPROF_MAX_CONTEXTS",
                                     16384,
                                     16,
                                     uint64_t(1) << 24,
                                     "Distinct stacks kept per thread before samples are dropped"};
inline constexpr Number kInterval{
    "--interval",
    "OMPROF_INTERVAL_MS",
    100,
    1,
    60000,
    "Length of a timeline interval in milliseconds (longer once a thread's ring is full)"};
inline constexpr Number kEventMin{
    "--event-min",
    "OMPROF_EVENT_MIN_MS",
    10,
    1,
    600000,
    "Explicit region instances and MPI calls at least this long (ms) go on the timeline with "
    "their times (more once a thread's event ring is full)"};
inline constexpr Number kMaxThreads{nullptr, "OMPROF_MAX_THREADS", 4096,
                                    1,       uint64_t(1) << 20,    "Threads sampled over the run"};

// Parses `text` as a whole number inside the option's range; false with `error` set
// ("OMPROF_RATE must be an integer from 1 to 10000, got 'abc'").
bool parse_number(const Number& opt, const char* text, uint64_t& out, std::string& error);

// --clock: "" lets the launcher choose (task where perf_event_open is permitted, else cpu).
inline constexpr const char* kClockEnv = "OMPROF_CLOCK";
inline constexpr const char* kClockChoices[] = {"cpu", "wall", "task"};

// --signal: a name ("SIGPROF", "PROF", "SIGRTMIN+3") or a number.
inline constexpr const char* kSignalEnv = "OMPROF_SIGNAL";
inline constexpr const char* kSignalDefault = "SIGPROF";
// The signal number, or -1.
int parse_signal(const std::string& name);
// A signal omprof can sample with: not KILL/STOP, not a fault signal, not SIGCHLD.
bool usable_profiling_signal(int signo);

// The rest of the contract: set by the launcher, read by the collector.
namespace env {
inline constexpr const char* kOutput = "OMPROF_OUTPUT";        // absolute output directory
inline constexpr const char* kManifest = "OMPROF_MANIFEST";    // proto/manifest.h
inline constexpr const char* kRootPid = "OMPROF_ROOT_PID";     // the process to profile
inline constexpr const char* kChildren = "OMPROF_CHILDREN";    // "1": its children too
inline constexpr const char* kSymbolize = "OMPROF_SYMBOLIZE";  // "1": symbolize at exit
// "1": each MPI call also reads the thread CPU clock twice (a system call each on Linux).
inline constexpr const char* kMpiCpu = "OMPROF_MPI_CPU";
// "1": explicit regions also read the thread CPU clock at begin and end (a system call each).
inline constexpr const char* kRegionCpu = "OMPROF_REGION_CPU";
// "1": explicit regions also read the thread's counter group (--counters) at begin and end.
inline constexpr const char* kRegionCounters = "OMPROF_REGION_COUNTERS";
// "1": the collector's wall clock reads the TSC (after its calibration), "0": CLOCK_MONOTONIC
// through the vDSO always; unset: the TSC where the kernel's clocksource is the TSC
// (collector/handler/wall_clock.h).
inline constexpr const char* kTsc = "OMPROF_TSC";
// Context switches per second of thread CPU time above which a thread sampled by the task
// clock moves to the cpu clock (collector/handler/clock_fallback.h); unset or "0": never. Set
// by `omprof run` when it chose the task clock itself (kClockFallbackDefault).
inline constexpr const char* kClockFallback = "OMPROF_CLOCK_FALLBACK";
inline constexpr const char* kClockFallbackDefault = "4000";
// Why the launcher chose OMPROF_CLOCK (Header.clock_choice): one line for the profile's header.
inline constexpr const char* kClockChoice = "OMPROF_CLOCK_CHOICE";
// Counter events per thread ("page-faults,context-switches"; proto/counter_events.h), checked by
// the launcher; unset or "": none.
inline constexpr const char* kCounters = "OMPROF_COUNTERS";
// The events' perf_event encodings, in OMPROF_COUNTERS' order (counters::join_encodings): the
// launcher's translation of libpfm4 names and PAPI presets.
inline constexpr const char* kCounterEncoding = "OMPROF_COUNTER_ENCODING";
// "=VALUE" or "" (unset): what LD_PRELOAD / LD_LIBRARY_PATH were before the launcher set them.
inline constexpr const char* kRestorePrefix = "OMPROF_RESTORE_";
}  // namespace env

}  // namespace omprof::options
