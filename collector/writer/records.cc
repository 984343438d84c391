#include "collector/writer/records.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "collector/ompt/task_origins.h"
#include "collector/openmp/member_counters.h"
#include "collector/openmp/runtime_status.h"
#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/sampling.h"
#include "proto/fields.h"
#include "proto/format.h"
#include "proto/interval_ring.h"
#include "proto/text.h"
#include "unwind/module_kind.h"

namespace omprof::writer {

namespace fields = format::fields;

namespace {

uint64_t clock_code(ClockKind k) {
  switch (k) {
    case ClockKind::kWall:
      return format::kClockWall;
    case ClockKind::kTask:
      return format::kClockTask;
    case ClockKind::kCpu:
      break;
  }
  return format::kClockCpu;
}

uint64_t id_of(const LocationIds& ids, uint64_t address) {
  auto it = ids.find(address);
  return it == ids.end() ? 0 : it->second;
}

// `counters`: how many counter events the run counted (0 for exact waits).
wire::Encoder sample_message(uint64_t stack_id, const SampleEntry& e, size_t counters) {
  namespace S = fields::Sample;
  wire::Encoder s;
  s.u64(S::kStackId, stack_id);
  s.u64(S::kCount, e.count);
  s.u64(S::kWeightNs, e.weight_ns);
  s.u64(S::kOmpState, e.ctx.omp_state);
  s.u64(S::kForkId, e.ctx.fork_id);
  s.u64(S::kOmpThreadNum, e.ctx.omp_thread_num);
  s.u64(S::kRegionNode, e.ctx.region_node);
  s.u64(S::kCpuNs, e.cpu_ns);
  s.u64(S::kTaskOriginId, e.ctx.task_origin);
  s.u64(S::kIdleWorkersNs, e.idle_blame_ns);
  s.u64(S::kOffCpuSeenNs, e.off_cpu_seen_ns);
  if (counters) s.packed(S::kCounter, e.counters, e.counters + counters);
  return s;
}

// The counter events (--counters) and the periods they are sampled at, in order.
void add_counter_events(wire::Encoder& h) {
  namespace H = fields::Header;
  std::vector<uint64_t> periods;  // packed: a 0 (counted only) keeps its place
  for (const counters::EventSpec& e : runtime().config.counter_events) {
    h.str(H::kCounterEvent, e.name);
    periods.push_back(e.sample_period);
  }
  h.packed(H::kCounterPeriod, periods.begin(), periods.end());
}

// An interval's leads, by their index in the thread's sample list.

void add_leads(wire::Encoder& in, const journal::IntervalRecord& r,
               const std::unordered_map<uint32_t, uint32_t>& sample_of_slot) {
  namespace I = fields::Interval;
  std::vector<uint32_t> samples, picks;
  journal::lead_samples(r, sample_of_slot, samples, picks);
  in.packed(I::kLeadSample, samples.begin(), samples.end());
  in.packed(I::kLeadSamples, picks.begin(), picks.end());
}

// The thread's timeline: its intervals with samples or measured waits (docs/format.md
// "Timeline").
void thread_intervals(wire::Encoder& th, const ThreadState* ts) {
  namespace T = fields::ThreadProfile;
  namespace I = fields::Interval;
  if (!ts->intervals) return;
  journal::ThreadIntervals t;
  if (!journal::copy_thread_intervals(*ts->intervals, ts->measured, t)) return;
  // A lead's sample-table slot as the index of its sample in the thread's list (written in the
  // table's order).
  std::unordered_map<uint32_t, uint32_t> sample_of_slot;
  for (uint32_t k = 0; k < ts->table.used(); ++k) sample_of_slot[ts->table.used_slot(k)] = k;
  th.u64(T::kIntervalNs, t.interval_ns);
  th.u64(T::kIntervalCoarsenings, t.coarsenings);
  wire::Encoder in;
  for (size_t i = 0; i < t.sampled.size(); ++i) {
    const journal::IntervalRecord &s = t.sampled[i], &m = t.measured[i];
    if (!journal::holds_anything(s) && !journal::holds_anything(m)) continue;
    const journal::IntervalRecord& context = s.samples ? s : m;
    in.clear();
    in.u64(I::kIndex, i);
    in.packed(I::kClassNs, s.ns, s.ns + journal::kTimelineClasses);
    in.u64(I::kSamples, s.samples);
    in.u64(I::kLastState, context.last_state);
    in.u64(I::kForkId, context.fork_id);
    in.u64(I::kRegionNode, context.region_node);
    const size_t counters = runtime().config.counter_events.size();
    if (counters && std::any_of(s.counters, s.counters + counters, [](uint64_t c) { return c; }))
      in.packed(I::kCounter, s.counters, s.counters + counters);
    add_leads(in, s, sample_of_slot);
    if (journal::holds_anything(m)) {
      in.packed(I::kMeasuredNs, m.ns, m.ns + journal::kTimelineClasses);
      in.u64(I::kMeasuredWaits, m.samples);
    }
    th.message(T::kInterval, in);
  }
}

// The thread's long explicit region instances and MPI calls (docs/format.md "Timeline").
void thread_events(wire::Encoder& th, const ThreadState* ts) {
  namespace T = fields::ThreadProfile;
  namespace E = fields::Event;
  journal::EventRingCopy ring;
  if (!ts->events || !journal::copy_event_ring(*ts->events, ring)) return;
  th.u64(T::kEventMinNs, ring.min_ns);
  th.u64(T::kEventsDropped, ring.dropped);
  wire::Encoder ev;
  for (const journal::EventRecord& e : ring.events) {
    ev.clear();
    ev.u64(E::kStartNs, e.start_ns);
    ev.u64(E::kEndNs, e.end_ns);
    ev.u64(E::kKind, e.kind);
    ev.u64(E::kId, e.id);
    ev.u64(E::kSite, e.site);
    th.message(T::kEvent, ev);
  }
}

// The per-thread facts written once, in a thread's first record.
void thread_facts(wire::Encoder& th, const ThreadState* ts) {
  namespace T = fields::ThreadProfile;
  th.u64(T::kStartNs, ts->start_ns);
  th.u64(T::kEndNs, ts->end_ns.load());
  th.u64(T::kCpuTimeNs, ts->cpu_ns_at_exit.load());
  th.u64(T::kDroppedSamples, ts->table.dropped_samples());
  th.u64(T::kDroppedWeightNs, ts->table.dropped_weight_ns());
  th.u64(T::kTruncatedSamples, ts->truncated_samples);
  th.u64(T::kTimerFailed, ts->timer_errno ? 1 : 0);
  th.i32(T::kTimerErrno, ts->timer_errno);
  th.u64(T::kUnwindFailed, ts->unwind_failed);
  th.boolean(T::kIsOmpThread, ts->is_omp_thread);
  th.boolean(T::kMpiLibraryThread, ts->mpi_library_thread);
  th.u64(T::kContextSwitches, ts->context_switches);
  th.u64(T::kCpuClockFromNs, ts->cpu_clock_from_ns);
  th.u64(T::kSwitchesPerCpuSAtMove, ts->switches_per_cpu_s_at_move);
  th.u64(T::kShortStackSamples, ts->short_stack_samples);
  th.u64(T::kParallelWallNs, ts->parallel_wall_ns);
  th.u64(T::kUnmeasuredWaits, ts->unmeasured_waits);
  const size_t counters = runtime().config.counter_events.size();
  th.i32(T::kCounterErrno, ts->counter_errno);
  th.u64(T::kCounterSamplesLost, ts->counter_samples_lost);
  if (counters && !ts->counter_errno) {
    th.packed(T::kCounterTotal, ts->counter_totals, ts->counter_totals + counters);
    th.u64(T::kCounterEnabledNs, ts->counter_enabled_ns);
    th.u64(T::kCounterRunningNs, ts->counter_running_ns);
  }
  th.u64(T::kRunDelayNs, ts->run_delay_ns);
  th.u64(T::kInvoluntarySwitches, ts->involuntary_switches);
  th.str_nonempty(T::kCpus, text::cpu_list(ts->cpu_mask, 16));
  thread_intervals(th, ts);
  thread_events(th, ts);
}

// The sampling clock, why it is this one, its rate, the stack depth and the signal.
void add_sampling_settings(wire::Encoder& h, const Config& cfg) {
  namespace H = fields::Header;
  h.u64(H::kClock, clock_code(cfg.clock));
  h.str_nonempty(H::kClockChoice, cfg.clock_choice);
  h.u64(H::kRateHz, cfg.rate_hz);
  h.u64(H::kPeriodNs, cfg.period_ns);
  h.u64(H::kMaxDepth, cfg.max_depth);
  h.u64(H::kSignal, uint64_t(cfg.signo));
}

}  // namespace

void add_mpi_header_fields(wire::Encoder& h, const HeaderFacts& facts) {
  namespace H = fields::Header;
  h.i32(H::kMpiRank, facts.mpi_rank);
  h.i32(H::kMpiSize, facts.mpi_size);
  h.str_nonempty(H::kMpiLibrary, facts.mpi_library);
  h.i32(H::kMpiThreadLevel, facts.mpi_thread_level);
  h.boolean(H::kMpiCallsExact, facts.mpi_calls_exact);
  h.str_nonempty(H::kMpiNote, facts.mpi_note);
  h.u64(H::kMpiInitEndNs, facts.mpi_init_end_ns);
  h.u64(H::kMpiFinalizeStartNs, facts.mpi_finalize_start_ns);
  h.boolean(H::kMpiCpuExact, facts.mpi_cpu_exact);
}

wire::Encoder header_record(const HeaderFacts& facts) {
  namespace H = fields::Header;
  const Runtime& rt = runtime();
  const Config& cfg = rt.config;
  char host[HOST_NAME_MAX + 1] = {0};
  gethostname(host, sizeof host - 1);
  wire::Encoder h;
  h.u64(H::kFormatMajor, format::kMajor);
  h.u64(H::kFormatMinor, format::kMinor);
  h.str(H::kCollectorVersion, OMPROF_VERSION);
  h.str(H::kProgram, facts.program);
  for (const auto& a : facts.argv) h.str(H::kArgv, a);
  h.u64(H::kPid, uint64_t(getpid()));
  h.str(H::kHostname, host);
  h.u64(H::kStartTimeUnixNs, rt.start_unix_ns);
  h.u64(H::kDurationNs, facts.duration_ns);
  add_sampling_settings(h, cfg);
  h.str_nonempty(H::kOmpRuntime, facts.omp.runtime);
  h.boolean(H::kOmptActive, facts.omp.ompt_active);
  h.str_nonempty(H::kOmpNote, facts.omp.note);
  add_mpi_header_fields(h, facts);
  h.boolean(H::kExactWaits, facts.omp.ompt_active);     // exact OpenMP waits in ThreadProfile.wait
  h.boolean(H::kOffCpuWaits, facts.omp.off_cpu_waits);  // their off-CPU part (libgomp)
  h.boolean(H::kSymbolizeOffline, facts.symbolize_offline);
  h.u64(H::kRegionWindowStartNs, uint64_t(facts.region_window_start_ns));
  h.boolean(H::kRegionCpuExact, facts.region_cpu_exact);
  h.boolean(H::kRegionCountersExact, region_counters_measured());
  openmp::add_run_measurement(h);
  if (facts.wall_clock.checked) {
    h.str(H::kWallClock, facts.wall_clock.tsc ? "tsc" : "clock_monotonic");
    h.i64(H::kWallClockDriftNs, facts.wall_clock.drift_ns);
    h.str_nonempty(H::kWallClockNote, facts.wall_clock.note);
  }
  h.u64(H::kCpusOnline, facts.machine.cpus_online);
  h.u64(H::kCpusAllowed, facts.machine.cpus_allowed);
  h.u64(H::kStealPermille, facts.machine.steal_permille);
  h.u64(H::kLoadAvgMilli, facts.machine.load_avg_milli);
  for (const std::string& s : omp_settings()) h.str(H::kOmpSetting, s);
  h.str_nonempty(H::kOmpRuntimeVersion, facts.omp.version);
  add_counter_events(h);
  if (facts.ending_kind) {
    wire::Encoder e;
    e.u64(fields::Ending::kKind, facts.ending_kind);
    e.i32(fields::Ending::kExitStatus, facts.exit_status);
    h.message(H::kEnding, e);
  }
  return h;
}

void add_string_records(wire::RecordStream& out, const StringTable& strings) {
  constexpr size_t kStringsPerRecord = 4096;
  const auto& entries = strings.entries();
  for (size_t start = 0; start < entries.size(); start += kStringsPerRecord) {
    wire::Encoder st;
    for (size_t k = start; k < entries.size() && k < start + kStringsPerRecord; ++k)
      st.str(fields::StringTable::kEntries, entries[k]);
    out.add(fields::Record::kStrings, st);
  }
}

namespace {

// The file readers will open for a module's symbols. An OpenMP runtime loaded through a symlink
// is named by its target: the libgomp.so.1 that `omprof run` points at LLVM libomp for gcc-built
// programs lives in a scratch directory removed when the run ends.
std::string file_to_read(const std::string& path) {
  struct stat st;
  if (path.empty() || path[0] != '/' || lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode) ||
      !unwind::is_omp_runtime_module(path))
    return path;
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

}  // namespace

void add_mapping_records(wire::RecordStream& out, const std::vector<unwind::Module>& modules,
                         StringTable& strings) {
  namespace M = fields::Mapping;
  for (size_t i = 0; i < modules.size(); ++i) {
    const auto& m = modules[i];
    wire::Encoder mp;
    mp.u64(M::kId, i + 1);
    mp.u64(M::kStart, m.start());
    mp.u64(M::kLimit, m.limit());
    mp.u64(M::kFileOffset, m.segments.empty() ? 0 : m.segments.front().file_offset);
    mp.u64(M::kFilename, strings.index(file_to_read(m.path)));
    mp.u64(M::kBuildId, strings.index(m.build_id));
    mp.u64(M::kLoadBias, m.load_bias);
    mp.boolean(M::kUnloaded, m.unloaded);
    mp.boolean(M::kIsOmpRuntime, unwind::is_omp_runtime_module(m.path));
    out.add(fields::Record::kMapping, mp);
  }
}

void add_stack_records(wire::RecordStream& out, const StackTable& stacks,
                       const LocationIds& location_ids) {
  namespace S = fields::Stack;
  for (size_t i = 0; i < stacks.size(); ++i) {
    wire::Encoder st;
    st.u64(S::kId, i + 1);
    std::vector<uint64_t> locs;
    for (uint64_t addr : stacks.frames(i)) locs.push_back(id_of(location_ids, addr));
    st.packed(S::kLocationId, locs.begin(), locs.end());
    st.boolean(S::kTruncated, stacks.flags(i) & kStackTruncated);
    st.boolean(S::kUnwindFailed, stacks.flags(i) & kStackUnwindFailed);
    out.add(fields::Record::kStack, st);
  }
}

void add_thread_records(wire::RecordStream& out, const ThreadRows& t) {
  namespace T = fields::ThreadProfile;
  const ThreadState* ts = t.ts;
  // Very large threads are split over several records (readers merge them by index).
  constexpr size_t kChunk = 100000;
  for (size_t start = 0; start == 0 || start < t.samples.size(); start += kChunk) {
    wire::Encoder th;
    th.u64(T::kIndex, ts->index);
    th.u64(T::kTid, uint64_t(ts->tid));
    th.boolean(T::kIsMain, ts->is_main);
    if (start == 0) thread_facts(th, ts);
    for (size_t k = start; k < t.samples.size() && k < start + kChunk; ++k)
      th.message(T::kSample, sample_message(t.samples[k].first, *t.samples[k].second,
                                            runtime().config.counter_events.size()));
    if (start == 0) {
      for (const auto& [stack_id, e] : t.waits)
        th.message(T::kWait, sample_message(stack_id, *e, 0));
      th.u64(T::kWaitsDropped, ts->waits.dropped_samples() + ts->open_waits_overflow);
      th.u64(T::kWaitsDroppedNs, ts->waits.dropped_weight_ns());
      th.u64(T::kSamplingLost, ts->sampling_lost);
      th.u64(T::kArmedClockNs, ts->armed_clock_ns);
      th.u64(T::kPeriodsSampled, ts->strata_sampled);
    }
    out.add(fields::Record::kThread, th);
    if (t.samples.empty()) break;
  }
}

void add_fork_records(wire::RecordStream& out, const std::vector<openmp::ForkSnapshot>& forks,
                      const std::vector<uint64_t>& fork_stack_ids,
                      const LocationIds& location_ids) {
  namespace F = fields::ForkRecord;
  const size_t member_counters =
      region_counters_measured() ? runtime().config.counter_events.size() : 0;
  for (size_t i = 0; i < forks.size(); ++i) {
    const auto& f = forks[i];
    wire::Encoder fr;
    fr.u64(F::kId, f.id);
    fr.u64(F::kParentId, f.parent_id);
    fr.u64(F::kStackId, fork_stack_ids[i]);
    fr.u64(F::kCodeptrLocationId, f.codeptr ? id_of(location_ids, f.codeptr) : 0);
    fr.u64(F::kInstances, f.instances);
    fr.u64(F::kWallNs, f.wall_ns);
    fr.packed(F::kTeamSizes, f.team_sizes.begin(), f.team_sizes.end());
    fr.boolean(F::kTask, f.task);
    if (member_counters && !f.task)
      fr.packed(F::kCounter, f.counters.begin(), f.counters.begin() + member_counters);
    out.add(fields::Record::kFork, fr);
  }
}

void add_region_records(wire::RecordStream& out, const RegionData& regions, StringTable& strings) {
  namespace N = fields::RegionNode;
  namespace R = fields::RegionStats;
  const size_t counters = region_counters_measured() ? runtime().config.counter_events.size() : 0;
  for (const auto& [id, info] : regions.nodes) {
    wire::Encoder rn;
    rn.u64(N::kId, id);
    rn.u64(N::kParentId, info.parent);
    const bool named = info.region >= 1 && size_t(info.region) <= regions.names.size();
    rn.u64(N::kName, strings.index(named ? regions.names[size_t(info.region) - 1] : ""));
    out.add(fields::Record::kRegionNode, rn);
  }
  for (const auto& t : regions.threads)
    for (const auto& n : t.nodes) {
      wire::Encoder rs;
      rs.u64(R::kNodeId, n.node);
      rs.u64(R::kThreadIndex, t.thread);
      rs.i64(R::kCalls, n.calls);
      rs.i64(R::kWallNs, n.wall_ns);
      rs.i64(R::kCpuNs, n.cpu_ns);
      rs.i64(R::kSelfWallNs, n.self_wall_ns);
      rs.i64(R::kSelfCpuNs, n.self_cpu_ns);
      rs.boolean(R::kActive, n.active);
      if (counters) {
        rs.packed(R::kCounter, n.counters, n.counters + counters);
        rs.packed(R::kSelfCounter, n.self_counters, n.self_counters + counters);
      }
      out.add(fields::Record::kRegionStats, rs);
    }
}

wire::Encoder trailer_record(uint64_t record_count) {
  namespace T = fields::Trailer;
  wire::Encoder trailer;
  trailer.u64(T::kRecordCount, record_count);
  trailer.u64(T::kThreadsUntracked, threads_untracked());
  trailer.u64(T::kThreadsBeforeStart, threads_before_start());
  trailer.u64(T::kMemberCountsLost, openmp::member_counts::lost());
  trailer.u64(T::kTimerCreateFailures, runtime().timer_create_failures.load());
  trailer.u64(T::kForwardedSignals, handler::sampling_state().forwarded_signals.load());
  // The model's creation records and paths, and the OMPT tool's tasks whose record did not fit
  // its task table.
  trailer.u64(T::kForkRecordsDropped,
              openmp::fork_records_dropped() + ompt::task_origins::dropped());
  const HandlerStats hs = handler_stats();
  trailer.u64(T::kHandlerCallsTimed, hs.calls);
  trailer.u64(T::kHandlerNsTotal, hs.total_ns);
  return trailer;
}

}  // namespace omprof::writer
