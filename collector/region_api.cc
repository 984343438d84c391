// The explicit-region API (include/omprof/omprof.h) as the collector implements it. These
// definitions interpose on the no-op library applications link (api/omprof_api.c). In a
// process omprof does not profile they behave exactly like the no-op library.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <set>

#include "collector/handler/counter_read.h"
#include "collector/journal_writer.h"
#include "collector/private_heap.h"
#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "collector/timeline_events.h"
#include "omprof/omprof.h"
#include "proto/fields.h"
#include "proto/options.h"
#include "regions/name_cache.h"
#include "regions/names.h"
#include "regions/registry.h"
#include "regions/thread_timer.h"

namespace omprof {

namespace {

using regions::MismatchMode;
using regions::Status;
using regions::ThreadTimer;
using regions::Timestamp;

// Never destroyed: region calls may come after static destructors.
struct RegionRuntime {
  regions::Registry registry;
  std::mutex mu;  // threads list, diagnostics, reset
  std::vector<ThreadTimer*> threads;
  std::atomic<int> mode{int(MismatchMode::kStrict)};
  std::atomic<bool> diagnostics{true};
  std::atomic<int64_t> window_start_ns{0};
  std::set<std::pair<int, const void*>> reported;      // (kind, call site) already diagnosed
  std::atomic<uint32_t> next_foreign_index{1u << 20};  // threads omprof does not sample
};
// Names and nodes go to the journal as they are made, so that a process that dies still has
// its region tree (the exact statistics stay in memory: docs/format.md).
void journal_name(int32_t id, const std::string& name) {
  namespace J = format::fields::JournalRegion;
  wire::Encoder e;
  e.u64(J::kId, uint64_t(id));
  e.str(J::kName, name);
  journal::append_entry(format::fields::JournalEntry::kRegion, e);
}
void journal_node(uint32_t id, regions::NodeInfo node) {
  namespace N = format::fields::RegionNode;
  wire::Encoder e;
  e.u64(N::kId, id);
  e.u64(N::kParentId, node.parent);
  e.u64(N::kName, uint64_t(node.region));
  journal::append_entry(format::fields::JournalEntry::kRegionNode, e);
}

RegionRuntime& rr() {
  static RegionRuntime* r = [] {
    auto* rt = new RegionRuntime;
    rt->registry.set_observer({journal_name, journal_node});
    return rt;
  }();
  return *r;
}

__attribute__((tls_model("initial-exec"))) thread_local ThreadTimer* t_timer = nullptr;

// Per-thread name cache: a begin by name hashes the name and compares it, nothing more.
__attribute__((tls_model("initial-exec"))) thread_local regions::NameCache* t_names = nullptr;

bool enabled() {
  return runtime().active.load(std::memory_order_relaxed);
}

// A region call from a signal handler that interrupted omprof's own code on this thread (a
// region call, or the collector's allocator) would wait forever for a lock the thread holds
// (Registry::intern's mutex, the heap's spinlock). Every entry point marks the thread as inside
// omprof; a call that finds it marked is refused with OMPROF_ERR_REENTERED, changes nothing,
// prints nothing (stdio and the diagnostics' lock may be held too) and is counted.
__attribute__((tls_model("initial-exec"))) thread_local int t_inside = 0;
std::atomic<uint64_t> g_refused_calls{0};

class Inside {
 public:
  Inside() : refused_(t_inside != 0 || private_heap_held_here()) {
    ++t_inside;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~Inside() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --t_inside;
  }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
  // Whether this call must be refused (counted once, here).
  bool refused() const {
    if (refused_) g_refused_calls.fetch_add(1, std::memory_order_relaxed);
    return refused_;
  }

 private:
  bool refused_;
};

int64_t to_ns(const timespec& t) {
  return int64_t(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

}  // namespace

// Thread CPU time costs a system call per read (no vDSO path for CLOCK_THREAD_CPUTIME_ID:
// 0.2 to 0.7 us), four per begin/end pair: regions record wall time only unless
// OMPROF_REGION_CPU=1 (`omprof run --region-cpu`); the viewer estimates a region's CPU time
// from the samples taken in it.
bool region_cpu_measured() {
  static const bool on = [] {
    const char* v = std::getenv(options::env::kRegionCpu);
    return v && v[0] == '1';
  }();
  return on;
}

// Counter events per explicit region are exact only with OMPROF_REGION_COUNTERS=1 (`omprof run
// --counters LIST --region-counters`): a read of the thread's counter group at every begin and
// end, two system calls each (the descriptor check and the read); without it, a region's events
// are its samples' (docs/semantics.md, "Counters").
bool region_counters_measured() {
  // First called once the collector is active (the region API does nothing before), when the
  // configuration has been read.
  static const bool on = [] {
    const char* v = std::getenv(options::env::kRegionCounters);
    return v && v[0] == '1' && !runtime().config.counter_events.empty();
  }();
  return on;
}

namespace {

// The thread's counts so far; its last good reading when the group cannot be read (closed by
// the program), so that a region's difference is never a reading against nothing.
thread_local int64_t t_last_counts[regions::kCounterSlots] = {};
// region_counters_measured(), kept where the begin/end path reads it without a guard: set when
// the first thread timer is made (before any begin).
bool g_region_counters = false;

Timestamp now() {
  timespec c{};
  if (region_cpu_measured()) clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
  if (g_region_counters) {  // the thread timer's counter source (timer() below)
    uint64_t values[journal::kMaxCounters] = {};
    ThreadState* ts = current_thread();
    if (ts && handler::read_counter_group(ts, values))
      for (size_t i = 0; i < regions::kCounterSlots; ++i) t_last_counts[i] = int64_t(values[i]);
  }
  return {int64_t(monotonic_ns() - runtime().start_mono_ns), to_ns(c)};
}

// A region instance that closed: on the timeline if it was long enough (its wall times are the
// run's: monotonic ns from its start).
void note_instance(void* events, uint32_t node, int64_t start_wall_ns, int64_t end_wall_ns) {
  if (start_wall_ns >= 0 && end_wall_ns >= start_wall_ns)
    add_timeline_event(static_cast<journal::EventRing*>(events), uint64_t(start_wall_ns),
                       uint64_t(end_wall_ns), journal::kEventRegion, node, 0);
}

// The thread's region statistics in its journal block (journal::RegionStatsRecord, which has
// NodeStats's layout), as NodeStats objects: the timer keeps them there.
static_assert(
    sizeof(regions::NodeStats) == sizeof(journal::RegionStatsRecord) &&
    offsetof(regions::NodeStats, calls) == offsetof(journal::RegionStatsRecord, calls) &&
    offsetof(regions::NodeStats, wall_ns) == offsetof(journal::RegionStatsRecord, wall_ns) &&
    offsetof(regions::NodeStats, cpu_ns) == offsetof(journal::RegionStatsRecord, cpu_ns) &&
    offsetof(regions::NodeStats, counters) == offsetof(journal::RegionStatsRecord, counters) &&
    regions::kCounterSlots == journal::kMaxCounters);
regions::NodeStats* journal_stats(void* memory) {
  auto* stats = static_cast<regions::NodeStats*>(memory);
  for (uint32_t n = 0; n < journal::kJournalRegionNodes; ++n) new (stats + n) regions::NodeStats;
  return stats;
}

ThreadTimer* timer() {
  if (t_timer) return t_timer;
  RegionRuntime& r = rr();
  ThreadState* ts = current_thread();
  const uint32_t index = ts ? ts->index : r.next_foreign_index.fetch_add(1);
  auto* t = new ThreadTimer(r.registry, index);
  if (ts) {
    ts->region_node = &t->current_node_variable();  // what the handler reads
    t->set_close_observer(note_instance, ts->events);
    g_region_counters = region_counters_measured();
    if (g_region_counters) t->set_counter_source(t_last_counts);
    if (ts->region_stats)
      t->use_storage(journal_stats(ts->region_stats), journal::kJournalRegionNodes);
  }
  {
    std::lock_guard<std::mutex> lock(r.mu);
    r.threads.push_back(t);
  }
  t_timer = t;
  return t;
}

// One line on stderr, at most once per kind of failure and call site.
void diagnose(int kind, const void* site, const char* what, const char* detail) {
  RegionRuntime& r = rr();
  if (!r.diagnostics.load()) return;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    if (!r.reported.insert({kind, site}).second) return;
  }
  std::fprintf(stderr, "omprof: %s: %s (%s)\n", what, detail, regions::status_name(kind));
}

// Name -> region id, validating new names. Fast path: the thread's cache.
Status resolve(const char* name, int32_t& id) {
  if (!name) return regions::kInvalidName;
  size_t n = 0;
  while (name[n]) ++n;
  size_t trimmed = n;
  while (trimmed > 0 && name[trimmed - 1] == ' ') --trimmed;
  if (!t_names) t_names = new regions::NameCache;
  const uint64_t h = regions::NameCache::hash(name, trimmed);
  if ((id = t_names->find(h, name, trimmed)) != 0) return regions::kSuccess;
  std::string normalized;
  Status st = regions::normalize_name(name, normalized);
  if (st != regions::kSuccess) return st;
  id = rr().registry.intern(normalized);
  t_names->insert(h, std::move(normalized), id);
  return regions::kSuccess;
}

int begin_region(int32_t id, uint64_t* token, const void* site) {
  Status st = timer()->begin(id, now(), token);
  if (st != regions::kSuccess) diagnose(st, site, "region begin", "call count exhausted");
  return st;
}

int end_region(int32_t id, const void* site) {
  const MismatchMode mode = MismatchMode(rr().mode.load(std::memory_order_relaxed));
  bool repaired = false;
  Status st = timer()->end(id, now(), mode, &repaired);
  if (st != regions::kSuccess) {
    diagnose(st, site, "region end",
             ("'" + regions::escape_name(rr().registry.name(id)) +
              "' is not the innermost open region on this thread; nothing changed")
                 .c_str());
  } else if (repaired && mode == MismatchMode::kWarn) {
    diagnose(regions::kMismatch, site, "region end (warn mode)",
             ("'" + regions::escape_name(rr().registry.name(id)) +
              "' ended out of order; the regions opened inside it were repaired")
                 .c_str());
  }
  return st;
}

int invalid_name(const char* name, const void* site, const char* what) {
  diagnose(regions::kInvalidName, site, what,
           name ? "the name is empty, starts with a blank, or holds control characters"
                : "the name is NULL");
  return regions::kInvalidName;
}

int unknown_id(const void* site, const char* what) {
  diagnose(regions::kUnknown, site, what, "unknown region id (not from omprof_region_lookup)");
  return regions::kUnknown;
}

int write_summary(const char* path, bool csv, const void* site) {
  if (!enabled()) return regions::kNotInit;
  Inside call;
  if (call.refused()) return regions::kReentered;
  RegionData data = region_data();
  regions::SummaryHeader h;
  h.pid = uint64_t(getpid());
  h.window_ns = now().wall_ns - data.window_start_ns;
  h.threads = data.threads.size();
  h.cpu_measured = region_cpu_measured();
  std::string why;
  if (!regions::write_summary_to(path, csv, h, summary_rows(data), &why)) {
    diagnose(regions::kIo, site, "region summary", why.c_str());
    return regions::kIo;
  }
  return regions::kSuccess;
}

}  // namespace

uint32_t current_region_node() {
  return t_timer ? t_timer->current_node() : 0;
}

void inherit_region_context(uint32_t node) {
  if (node == 0 && !t_timer) return;
  Inside call;  // a region call from a signal handler meanwhile is refused
  timer()->set_base(node);
}

std::vector<regions::SummaryRow> summary_rows(const RegionData& d) {
  std::map<uint32_t, regions::NodeInfo> nodes(d.nodes.begin(), d.nodes.end());
  return regions::summarize(
      d.threads, [&](uint32_t n) { return nodes.count(n) ? nodes[n] : regions::NodeInfo{}; },
      [&](int32_t id) {
        return id >= 1 && size_t(id) <= d.names.size() ? d.names[size_t(id) - 1] : "";
      });
}

uint64_t refused_region_calls() {
  return g_refused_calls.load();
}

RegionData region_data(int64_t end_ns) {
  Inside call;  // a region call from a signal handler meanwhile is refused
  RegionRuntime& r = rr();
  RegionData d;
  Timestamp t = now();
  // Regions still open are measured up to the end the profile states (its duration), not to
  // whenever this runs: an open region never lasts longer than the run.
  if (end_ns >= 0 && end_ns < t.wall_ns) t.wall_ns = end_ns;
  std::vector<ThreadTimer*> threads;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    threads = r.threads;
  }
  for (ThreadTimer* tt : threads) {
    // Only the calling thread's CPU clock is readable here: regions open on other threads get
    // their wall time so far, and CPU time from closed activations only.
    regions::ThreadSnapshot s{tt->thread_index(), tt->snapshot(t, tt == t_timer)};
    if (!s.nodes.empty()) d.threads.push_back(std::move(s));
  }
  for (uint32_t n = 1; n < r.registry.node_count(); ++n) d.nodes.push_back({n, r.registry.node(n)});
  for (int32_t id = 1; size_t(id) <= r.registry.name_count(); ++id)
    d.names.push_back(r.registry.name(id));
  d.window_start_ns = r.window_start_ns.load();
  return d;
}

}  // namespace omprof

using namespace omprof;

#define OMPROF_API extern "C" __attribute__((visibility("default")))
#define CALL_SITE __builtin_return_address(0)

OMPROF_API int omprof_region_begin(const char* name) {
  if (!enabled()) return OMPROF_SUCCESS;
  Inside call;
  if (call.refused()) return regions::kReentered;
  int32_t id = 0;
  if (resolve(name, id) != regions::kSuccess) return invalid_name(name, CALL_SITE, "region begin");
  return begin_region(id, nullptr, CALL_SITE);
}

OMPROF_API int omprof_region_end(const char* name) {
  if (!enabled()) return OMPROF_SUCCESS;
  Inside call;
  if (call.refused()) return regions::kReentered;
  int32_t id = 0;
  if (resolve(name, id) != regions::kSuccess) return invalid_name(name, CALL_SITE, "region end");
  return end_region(id, CALL_SITE);
}

OMPROF_API int omprof_region_lookup(const char* name, omprof_region_id* id) {
  if (!enabled()) {
    if (id) *id = 1;
    return OMPROF_SUCCESS;
  }
  Inside call;
  if (call.refused()) return regions::kReentered;
  int32_t found = 0;
  if (resolve(name, found) != regions::kSuccess)
    return invalid_name(name, CALL_SITE, "region lookup");
  if (id) *id = found;
  return OMPROF_SUCCESS;
}

OMPROF_API int omprof_region_begin_id(omprof_region_id id) {
  if (!enabled()) return OMPROF_SUCCESS;
  Inside call;
  if (call.refused()) return regions::kReentered;
  if (!rr().registry.valid_id(id)) return unknown_id(CALL_SITE, "region begin_id");
  return begin_region(id, nullptr, CALL_SITE);
}

OMPROF_API int omprof_region_end_id(omprof_region_id id) {
  if (!enabled()) return OMPROF_SUCCESS;
  Inside call;
  if (call.refused()) return regions::kReentered;
  if (!rr().registry.valid_id(id)) return unknown_id(CALL_SITE, "region end_id");
  return end_region(id, CALL_SITE);
}

OMPROF_API int omprof_region_begin_token(const char* name, uint64_t* token) {
  if (!enabled()) {
    if (token) *token = 1;
    return OMPROF_SUCCESS;
  }
  Inside call;
  if (call.refused()) return regions::kReentered;
  if (!token) {  // a guard region without its token could never be ended
    diagnose(regions::kUnknown, CALL_SITE, "region guard", "the token pointer is NULL");
    return regions::kUnknown;
  }

  int32_t id = 0;
  if (resolve(name, id) != regions::kSuccess) return invalid_name(name, CALL_SITE, "region guard");
  return begin_region(id, token, CALL_SITE);
}

OMPROF_API int omprof_region_end_token(uint64_t token) {
  if (!enabled()) return OMPROF_SUCCESS;
  Inside call;
  if (call.refused()) return regions::kReentered;
  Status st = timer()->end_token(token, now());
  if (st != regions::kSuccess)
    diagnose(st, CALL_SITE, "region guard",
             "its activation is no longer the innermost open region on this thread (ended or "
             "repaired by hand, or another thread); nothing changed");
  return st;
}

OMPROF_API int omprof_region_reset(void) {
  if (!enabled()) return OMPROF_SUCCESS;
  Inside call;
  if (call.refused()) return regions::kReentered;
  RegionRuntime& r = rr();
  std::lock_guard<std::mutex> lock(r.mu);
  for (ThreadTimer* t : r.threads)
    if (t->depth() != 0) {
      if (r.diagnostics.load() && r.reported.insert({regions::kActive, CALL_SITE}).second)
        std::fprintf(stderr, "omprof: region reset: regions are open; nothing changed (%s)\n",
                     regions::status_name(regions::kActive));
      return regions::kActive;
    }
  for (ThreadTimer* t : r.threads) t->reset();
  r.window_start_ns.store(now().wall_ns);
  return OMPROF_SUCCESS;
}

OMPROF_API int omprof_set_mismatch_mode(int mode) {
  if (!enabled()) return OMPROF_SUCCESS;
  Inside call;
  if (call.refused()) return regions::kReentered;
  if (mode < OMPROF_MISMATCH_STRICT || mode > OMPROF_MISMATCH_REPAIR) {
    diagnose(regions::kUnknown, CALL_SITE, "set_mismatch_mode", "no such mode");
    return regions::kUnknown;
  }
  rr().mode.store(mode);
  return OMPROF_SUCCESS;
}

OMPROF_API int omprof_get_mismatch_mode(int* mode) {
  if (mode) *mode = enabled() ? rr().mode.load() : OMPROF_MISMATCH_STRICT;
  return OMPROF_SUCCESS;
}

OMPROF_API int omprof_set_diagnostics(int on) {
  rr().diagnostics.store(on != 0);
  return OMPROF_SUCCESS;
}

OMPROF_API int omprof_write_summary(const char* path) {
  return write_summary(path, false, CALL_SITE);
}

OMPROF_API int omprof_write_summary_csv(const char* path) {
  return write_summary(path, true, CALL_SITE);
}

OMPROF_API const char* omprof_status_name(int status) {
  return regions::status_name(status);
}
