#include "collector/lifecycle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>
#include <new>

#include "collector/context_switches.h"
#include "collector/handler/idle_workers.h"
#include "collector/journal_writer.h"
#include "collector/libgomp/bridge.h"
#include "collector/machine_load.h"
#include "collector/modules.h"
#include "collector/ompt/exact_waits.h"
#include "collector/phase_timer.h"
#include "collector/run_report.h"
#include "collector/runtime.h"
#include "collector/sampling.h"
#include "collector/stack_bounds.h"
#include "collector/thread_registry.h"
#include "collector/writer/journal_entries.h"
#include "collector/writer/mpi_facts.h"
#include "collector/writer/profile_writer.h"
#include "proto/manifest.h"
#include "proto/options.h"

namespace omprof {

Runtime& runtime() {
  static Runtime* r = new Runtime;
  return *r;
}

namespace {

pthread_key_t g_exit_key;

uint64_t unix_ns() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return handler::ns_of(t);
}

// A thread's scheduling at its end, in its state (the profile and the journal read it there).
void keep_scheduling(ThreadState* ts, const ThreadScheduling& s) {
  ts->context_switches = s.voluntary_switches + s.involuntary_switches;
  ts->involuntary_switches = s.involuntary_switches;
  ts->run_delay_ns = s.run_delay_ns;
  std::copy(std::begin(s.cpu_mask), std::end(s.cpu_mask), std::begin(ts->cpu_mask));
}

// Runs at thread exit (pthread_exit or return from the start routine): the timer must go,
// since timers outlive their thread and count against RLIMIT_SIGPENDING.
void on_thread_exit(void* p) {
  auto* ts = static_cast<ThreadState*>(p);
  const uint64_t cpu = thread_cpu_ns(), now = monotonic_ns();
  keep_scheduling(ts, own_scheduling());
  end_thread_sampling(ts, cpu, now);
  ts->cpu_ns_at_exit.store(cpu);
  ts->end_ns.store(now - runtime().start_mono_ns);
  handler::uncount_omp_worker(ts);  // no longer idles while the main thread runs serially
  gomp::thread_exits(ts);
}

void start_thread_sampling(bool is_main, StackBounds stack) {
  ThreadState* ts = register_current_thread(is_main);
  if (!ts) return;
  ts->stack_low = stack.low;
  ts->stack_high = stack.high;
  pthread_setspecific(g_exit_key, ts);
  start_thread_clock(ts);
}

// Whether this process should be profiled: `omprof run` names the process it launched;
// processes it exec's into keep the pid. Others (helpers the program spawns) are left alone
// unless the user asked for children too.
bool should_profile() {
  const char* root = std::getenv(options::env::kRootPid);
  const char* children = std::getenv(options::env::kChildren);
  if (children && *children == '1') return true;
  if (!root || !*root) return true;  // preloaded by hand: profile it
  return std::strtoll(root, nullptr, 10) == getpid();
}

// Returns once no profiling handler is running (bounded: handlers take microseconds; a thread
// stuck in one for 10 ms is not waited for).
void wait_for_handlers() {
  const uint64_t deadline = monotonic_ns() + 10000000;
  while (handler::sampling_state().handlers_in_flight.load() != 0 && monotonic_ns() < deadline)
    sched_yield();
}

void in_fork_child() {
  // The child is left alone: no timers exist in it, and the parent's samples it inherited must
  // not be written a second time. Its copies of the parent's perf_event fds (--clock task) are
  // closed, so that its fd table is what it would be without omprof.
  runtime().active.store(false);
  handler::sampling_state().stopped.store(true);
  detach_threads_in_child();
  release_reserved_descriptor();
  release_clocks_in_child();
}

// exit() from any thread, and return from main: the status is known here.
void on_process_exit(int status, void*) {
  shutdown_collector(ProcessEnding{1, status});
}

using MainFn = int (*)(int, char**, char**);
MainFn g_program_main = nullptr;

// Runs as the program's main. Exit handlers run in the reverse order of registration, and the
// loader registers the one that runs library destructors (omprof's included) when the program
// starts, after omprof's constructor: registered here, omprof's handler runs before it, while
// the exit status is known.
int main_with_exit_handler(int argc, char** argv, char** envp) {
  if (runtime().active.load()) on_exit(on_process_exit, nullptr);
  return g_program_main(argc, argv, envp);
}

struct StartArgs {
  void* (*fn)(void*);
  void* arg;
  bool in_mpi;  // created inside an MPI call (MPI_Init's progress threads)
  StackRequest stack;
};

void* thread_trampoline(void* p) {
  StartArgs a = *static_cast<StartArgs*>(p);
  delete static_cast<StartArgs*>(p);
  if (runtime().active.load() && !handler::sampling_state().stopped.load()) {
    start_thread_sampling(false, new_thread_bounds(a.stack));
    if (ThreadState* ts = current_thread()) ts->mpi_library_thread = a.in_mpi;
  }
  return a.fn(a.arg);
}

// `omprof run` without --children: put back the loader variables it changed (saved as "=VALUE",
// or "" for unset), so that the processes the program starts run exactly as without omprof.
// In the constructor: the program has no other thread yet and has not read its environment.
void restore_loader_environment() {
  for (const char* name : {"LD_PRELOAD", "LD_LIBRARY_PATH"}) {
    const std::string saved_name = std::string(options::env::kRestorePrefix) + name;
    const char* saved = std::getenv(saved_name.c_str());
    if (!saved) continue;
    if (saved[0] == '=')
      setenv(name, saved + 1, 1);
    else
      unsetenv(name);
    unsetenv(saved_name.c_str());
  }
}

__attribute__((constructor(101))) void collector_start() {
  Runtime& rt = runtime();
  if (!should_profile()) return;
  PhaseTimer phases;
  restore_loader_environment();
  std::string error;
  if (!parse_config(rt.config, error)) {
    std::fprintf(stderr, "omprof: profiling disabled: %s\n", error.c_str());
    return;
  }
  handler::wall_clock::start(rt.config.wall_clock_tsc);
  rt.start_mono_ns = monotonic_ns();
  rt.start_unix_ns = unix_ns();
  note_machine_at_start();
  std::string journal_error;
  set_module_observer({writer::journal_module, writer::journal_unloaded});
  if (!writer::open_profile_journal(journal_error)) {
    // Profiling goes on; only a process that dies without exit handlers loses its profile.
    append_manifest(manifest::warning_line(journal_error + " (a profile is written only if the "
                                                           "program exits normally)"));
    reserve_descriptor();
  }
  phases.done("start: configuration and journal");
  append_manifest(manifest::start_line(getpid(), journal::journal_path()));
  phases.done("start: manifest");
  refresh_modules();
  phases.done("start: recording modules");
  writer::journal_header();
  set_handler_quiescence_wait(wait_for_handlers);
  if (pthread_key_create(&g_exit_key, on_thread_exit) != 0 || !install_sampler()) {
    std::fprintf(stderr, "omprof: profiling disabled: cannot install the signal handler\n");
    return;
  }
  pthread_atfork(nullptr, nullptr, in_fork_child);
  rt.active.store(true);
  phases.done("start: header and signal handler");
  // The exit handler that knows the status is registered when main starts (after the loader
  // registered its own, so that it runs first): see __libc_start_main below.
  start_thread_sampling(true, main_thread_bounds());
  count_threads_before_start();
  phases.done("start: main thread's sampling");
}

__attribute__((destructor)) void collector_stop() {
  shutdown_collector();
}

}  // namespace

void shutdown_collector(ProcessEnding ending) {
  static std::atomic<bool> done{false};
  Runtime& rt = runtime();
  handler::SamplingState& st = handler::sampling_state();
  if (!rt.active.load() || done.exchange(true)) return;
  st.stopped.store(true);
  // Handlers that were past the `stopped` check finish (and may re-arm their one-shot clock)
  // before the clocks are disarmed; signals still queued after that find `stopped` set.
  while (st.handlers_in_flight.load() != 0) sched_yield();
  if (handler::thread_states_lost()) {  // another process truncated the journal
    report_states_lost();
    return;
  }
  const uint32_t n = thread_count();
  // Threads still alive: their CPU time now (through their CPU clocks), then their sampling ends.
  const uint64_t end = monotonic_ns();
  for (uint32_t i = 0; i < n; ++i) {
    ThreadState* ts = thread_at(i);
    if (!ts || ts->end_ns.load() != 0) continue;
    clockid_t cid;
    timespec t;
    if (pthread_getcpuclockid(ts->handle, &cid) == 0 && clock_gettime(cid, &t) == 0)
      ts->cpu_ns_at_exit.store(handler::ns_of(t));
    keep_scheduling(ts, scheduling_of(ts->tid));
    end_thread_sampling(ts, ts->cpu_ns_at_exit.load(), end);
  }
  note_task_clock_cost();
  while (st.handlers_in_flight.load() != 0) sched_yield();
  ompt::close_open_waits(end);
  gomp::close_open_joins(end);
  mpi_summary_never_made();
  warn_if_mpi_unmeasured();
  write_profile(end - rt.start_mono_ns, ending);
}

}  // namespace omprof

extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                                     const pthread_attr_t* attr,
                                                                     void* (*fn)(void*),
                                                                     void* arg) {
  using Fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "pthread_create"));
  if (!omprof::runtime().active.load()) return real(thread, attr, fn, arg);
  const omprof::ThreadState* parent = omprof::current_thread();
  const bool in_mpi = parent && parent->mpi_call.load(std::memory_order_relaxed) != 0;
  auto* boot = new (std::nothrow) omprof::StartArgs{fn, arg, in_mpi, omprof::stack_request(attr)};
  if (!boot) return real(thread, attr, fn, arg);
  int rc = real(thread, attr, omprof::thread_trampoline, boot);
  if (rc != 0) delete boot;
  return rc;
}

// The C library's entry to main, interposed like HPCToolkit's libmonitor does: only to register
// the exit handler at the right moment (main_with_exit_handler). Static programs do not come
// here; their profile is written by the library destructor, with the ending unknown.
extern "C" __attribute__((visibility("default"))) int __libc_start_main(
    int (*main)(int, char**, char**), int argc, char** argv, void (*init)(), void (*fini)(),
    void (*rtld_fini)(), void* stack_end) {
  using Fn =
      int (*)(int (*)(int, char**, char**), int, char**, void (*)(), void (*)(), void (*)(), void*);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "__libc_start_main"));
  omprof::g_program_main = main;
  return real(omprof::main_with_exit_handler, argc, argv, init, fini, rtld_fini, stack_end);
}
