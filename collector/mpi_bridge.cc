#include "collector/mpi_bridge.h"

#include <atomic>
#include <cstdio>
#include <cstring>

#include "collector/handler/idle_workers.h"
#include "collector/handler/intervals.h"
#include "collector/handler/omp_inquiry.h"
#include "collector/lifecycle.h"
#include "collector/modules.h"
#include "collector/region_context.h"
#include "collector/run_report.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "collector/timeline_events.h"
#include "collector/writer/journal_entries.h"
#include "collector/writer/mpi_facts.h"
#include "collector/writer/summary_files.h"
#include "proto/manifest.h"
#include "proto/mpi_calls.h"
#include "proto/text.h"

namespace omprof {

namespace {
MpiFacts g_facts;  // written once, at MPI_Init, before the profile is written
}  // namespace

const MpiFacts& mpi_facts() {
  return g_facts;
}

void mpi_summary_never_made() {
  if (g_facts.initialized && !g_facts.summary_done && g_facts.rank == 0) {
    g_facts.summary_done = true;
    writer::write_summary_missing("the program did not call MPI_Finalize");
  }
}

void warn_if_mpi_unmeasured() {
  bool wrappers = false;
  std::string mpi;
  for (const unwind::Module& m : recorded_modules()) {
    const std::string f = text::base_name(m.path);
    if (f.rfind("libomprof_mpi", 0) == 0)
      wrappers = true;
    else if (mpi.empty() && (f.rfind("libmpi.so", 0) == 0 || f.rfind("libmpich", 0) == 0))
      mpi = f;
  }
  if (!mpi.empty() && !wrappers)
    append_manifest(manifest::warning_line(
        "the program loaded " + mpi +
        " without omprof's MPI wrappers (omprof run --mpi=on preloads them): time in MPI was not "
        "measured and shows as work"));
}

void mpi_summary_attempted() {
  g_facts.summary_done = true;
}

}  // namespace omprof

using namespace omprof;

extern "C" __attribute__((visibility("default"))) void omprof_internal_mpi_enter(
    omprof_mpi_call* c, uint32_t call, uint64_t call_site) {
  c->call = 0;
  ThreadState* ts = current_thread();
  if (!ts || call == 0 || call >= format::kMpiCallLimit) return;
  if (ts->mpi_call.load(std::memory_order_relaxed) != 0) return;  // nested: the outer one counts
  c->call = call;
  c->site = call_site ? call_site - 1 : 0;  // inside the calling instruction
  // The context a sample would have had (OpenMP region, thread number, explicit region), with
  // the MPI call as its state: in the journal before the call starts, for a process that dies
  // inside it.
  handler::read_omp_context(ts, ts->mpi_call_context);
  ts->mpi_call_context.omp_state = format::kMpiFirst + call;
  ts->mpi_call_context.region_node = current_region_node();
  ts->mpi_call_site = c->site;
  // The clocks last: the call's time is the library's, not omprof's bookkeeping above.
  c->cpu_start_ns = runtime().config.mpi_cpu ? thread_cpu_ns() : 0;
  c->start_ns = monotonic_ns();
  ts->mpi_call_start_mono_ns = c->start_ns;
  ts->mpi_call.store(call, std::memory_order_release);
}

extern "C" __attribute__((visibility("default"))) void omprof_internal_mpi_leave(
    omprof_mpi_call* c) {
  if (c->call == 0) return;
  const uint64_t now = monotonic_ns();
  const uint64_t cpu_now = runtime().config.mpi_cpu ? thread_cpu_ns() : 0;
  ThreadState* ts = current_thread();
  if (!ts) return;
  g_facts.calls_measured = true;
  // The wait table is this thread's own: OMPT callbacks, the only other writers, run on this
  // thread too and never during an MPI call. The call is recorded before it stops being in
  // progress, so that a journal never loses it.
  const uint64_t wall = now > c->start_ns ? now - c->start_ns : 0;
  ts->waits.add_site(c->site, ts->mpi_call_context, 1, wall,
                     cpu_now > c->cpu_start_ns ? cpu_now - c->cpu_start_ns : 0,
                     handler::idle_blame_ns(ts, wall));
  handler::place_measured(ts, now, wall, ts->mpi_call_context);
  const uint64_t origin = runtime().start_mono_ns;
  if (c->start_ns >= origin)
    add_timeline_event(ts->events, c->start_ns - origin, now - origin, journal::kEventMpi, c->call,
                       c->site);
  ts->mpi_call.store(0, std::memory_order_release);
}

extern "C" __attribute__((visibility("default"))) void omprof_internal_mpi_finalizing() {
  if (g_facts.finalize_start_ns != 0) return;
  g_facts.finalize_start_ns = monotonic_ns() - runtime().start_mono_ns;
  writer::journal_mpi_facts();
}

extern "C" __attribute__((visibility("default"))) void omprof_internal_mpi_initialized(
    int rank, int size, int thread_level, const char* library, const char* note) {
  g_facts.init_end_ns = monotonic_ns() - runtime().start_mono_ns;
  g_facts.cpu_exact = runtime().config.mpi_cpu;
  g_facts.rank = rank;
  g_facts.size = size;
  g_facts.thread_level = thread_level;
  if (library) {
    // The first line only (Open MPI adds its repository and release date).
    size_t n = std::strcspn(library, "\n");
    if (n >= sizeof g_facts.library) n = sizeof g_facts.library - 1;
    std::memcpy(g_facts.library, library, n);
    g_facts.library[n] = 0;
  }
  if (note) {
    std::strncpy(g_facts.note, note, sizeof g_facts.note - 1);
  }
  g_facts.initialized = true;
  writer::journal_mpi_facts();
}

extern "C" __attribute__((visibility("default"))) void omprof_internal_mpi_aborting(int errorcode) {
  g_facts.aborted = true;
  if (!g_facts.summary_done) {
    g_facts.summary_done = true;
    writer::write_summary_missing("rank " + std::to_string(g_facts.rank) + " called MPI_Abort(" +
                                  std::to_string(errorcode) + ")");
  }
  shutdown_collector(ProcessEnding{1, errorcode});  // Ending.Kind ENDING_EXITED
}
