#include "proto/journal_threads.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "proto/interval_ring.h"
#include "proto/mpi_calls.h"
#include "proto/state_codes.h"
#include "proto/text.h"

namespace omprof::format {

namespace {

using journal::FileHeader;
using journal::SampleEntry;
using journal::TableHeader;
using journal::ThreadRecord;

// A sample table of a thread's block, as Sample messages (`add(entry, frames, slot)`); entries
// caught half-written (count 0) or pointing outside the table are left out.
template <typename AddFn>
void read_table(const Mapped& m, uint64_t table_at, uint32_t capacity, uint32_t frame_capacity,
                AddFn add) {
  const journal::TableLayout l = journal::table_layout(capacity, frame_capacity);
  const auto* t = m.at<TableHeader>(table_at);
  if (!t || !m.holds(table_at, l.bytes) || t->capacity != capacity ||
      t->frame_capacity != frame_capacity)
    return;
  const auto* entries = reinterpret_cast<const SampleEntry*>(m.bytes(table_at + l.entries));
  const auto* order = reinterpret_cast<const uint32_t*>(m.bytes(table_at + l.order));
  const auto* frames = reinterpret_cast<const uint64_t*>(m.bytes(table_at + l.frames));
  const uint32_t used = std::min(t->used, capacity);
  const uint32_t frames_used = std::min(t->frames_used, frame_capacity);
  for (uint32_t k = 0; k < used; ++k) {
    if (order[k] >= capacity) continue;
    const SampleEntry& e = entries[order[k]];
    if (e.hash == 0 || e.count == 0 || uint64_t(e.frame_offset) + e.depth > frames_used) continue;
    add(e, frames + e.frame_offset, order[k]);
  }
}

// `counters`: the events counted (Header.counter_event); 0 for exact waits.
void set_sample(v1::Sample* s, uint64_t stack_id, const SampleEntry& e, uint64_t forks,
                uint64_t nodes, uint32_t counters = 0) {
  for (uint32_t c = 0; c < counters && c < journal::kMaxCounters; ++c)
    s->add_counter(e.counters[c]);
  s->set_stack_id(stack_id);
  s->set_count(e.count);
  s->set_weight_ns(e.weight_ns);
  s->set_cpu_ns(e.cpu_ns);
  s->set_idle_workers_ns(e.idle_blame_ns);
  s->set_off_cpu_seen_ns(e.off_cpu_seen_ns);
  s->set_omp_state(e.ctx.omp_state);
  s->set_omp_thread_num(e.ctx.omp_thread_num);
  // A fork record or region node whose entry was lost is not referred to.
  s->set_fork_id(e.ctx.fork_id <= forks ? e.ctx.fork_id : 0);
  s->set_region_node(e.ctx.region_node <= nodes ? e.ctx.region_node : 0);
  s->set_task_origin_id(e.ctx.task_origin <= forks ? e.ctx.task_origin : 0);
}

// An MPI call the thread was inside when the process died (a deadlocked job ended by a
// signal): MPI time from its start to the end of the run, at its call site, as if it had
// returned then.
void add_call_in_progress(v1::ThreadProfile& t, const ThreadRecord& r, uint64_t end_mono_ns,
                          TableBuilder& b, uint64_t forks, uint64_t nodes) {
  const uint32_t call = r.mpi_call.load();
  if (call == 0 || r.mpi_call_start_mono_ns == 0 || end_mono_ns <= r.mpi_call_start_mono_ns) return;
  SampleEntry e{};
  e.ctx = r.mpi_call_context;
  e.count = 1;
  e.weight_ns = end_mono_ns - r.mpi_call_start_mono_ns;
  const uint64_t site = r.mpi_call_site;
  set_sample(t.add_wait(), b.stack(&site, site ? 1 : 0, 0), e, forks, nodes);
}

// The thread's samples and exact waits from its tables; returns its sample-table slots as
// indexes in its sample list (the timeline's leads).
std::unordered_map<uint32_t, uint32_t> read_samples(v1::ThreadProfile& t, const Mapped& m,
                                                    uint64_t at, const ThreadRecord& r,
                                                    TableBuilder& b, uint64_t forks, uint64_t nodes,
                                                    uint32_t counters) {
  std::unordered_map<uint32_t, uint32_t> sample_of_slot;
  read_table(m, at + r.samples_offset, r.sample_capacity, r.sample_frames,
             [&](const SampleEntry& e, const uint64_t* frames, uint32_t slot) {
               sample_of_slot[slot] = uint32_t(t.sample_size());
               set_sample(t.add_sample(), b.stack(frames, e.depth, e.flags), e, forks, nodes,
                          counters);
             });
  read_table(m, at + r.waits_offset, r.wait_capacity, r.wait_frames,
             [&](const SampleEntry& e, const uint64_t* frames, uint32_t) {
               set_sample(t.add_wait(), b.stack(frames, e.depth, 0), e, forks, nodes);
             });
  return sample_of_slot;
}

// What the thread was doing as the journal was read: inside an MPI call, else in an OpenMP wait
// (ThreadRecord.mpi_call, omp_wait_state: each written with its start before it).
void set_now(v1::ThreadProfile& t, const ThreadRecord& r, uint64_t start_mono_ns) {
  const uint32_t call = r.mpi_call.load(std::memory_order_acquire);
  const uint32_t state =
      call ? format::kMpiFirst + call : r.omp_wait_state.load(std::memory_order_acquire);
  const uint64_t since = call ? r.mpi_call_start_mono_ns : r.omp_wait_start_mono_ns;
  if (state == 0 || since < start_mono_ns) return;
  t.set_now_state(state);
  t.set_now_since_ns(since - start_mono_ns);
}

// An MPI call still in progress (set_now) on the thread's timeline up to `end_mono_ns`
// (ns from the run's start): its intervals' MPI time, as its end would have added it.
void add_call_to_intervals(v1::ThreadProfile& t, uint64_t end_ns) {
  if (t.interval_ns() == 0 || t.now_state() < format::kMpiFirst || t.now_since_ns() >= end_ns)
    return;
  const uint64_t dt = t.interval_ns(), from = t.now_since_ns();
  if ((end_ns - from) / dt > journal::kIntervalCapacity) return;  // not this run's times
  std::map<uint64_t, v1::Interval*> by_index;
  for (v1::Interval& in : *t.mutable_interval()) by_index[in.index()] = &in;
  for (uint64_t i = from / dt; i * dt < end_ns; ++i) {
    const uint64_t part = std::min(end_ns, (i + 1) * dt) - std::max(from, i * dt);
    v1::Interval*& in = by_index[i];
    if (!in) {
      in = t.add_interval();
      in->set_index(i);
    }
    while (in->measured_ns_size() < int(journal::kTimelineClasses)) in->add_measured_ns(0);
    in->set_measured_ns(timeline::kMpi, in->measured_ns(timeline::kMpi) + part);
  }
}

// The thread's counter events (`counters` of them): its totals, or why it has none.
void set_counter_facts(v1::ThreadProfile& t, const ThreadRecord& r, uint32_t counters) {
  t.set_counter_errno(r.counter_errno);
  t.set_counter_samples_lost(r.counter_samples_lost);
  if (r.counter_errno) return;
  t.set_counter_enabled_ns(r.counter_enabled_ns);
  t.set_counter_running_ns(r.counter_running_ns);
  for (uint32_t c = 0; c < counters && c < journal::kMaxCounters; ++c)
    t.add_counter_total(r.counter_totals[c]);
}

// The thread's timeline, if its block has a ring that can be read (a writer may be changing it
// in a live process: a ring that kept changing is left out).
const journal::IntervalRing* ring_at(const Mapped& m, uint64_t block_at, uint64_t offset) {
  if (!offset || !m.holds(block_at + offset, sizeof(journal::IntervalRing))) return nullptr;
  return m.at<journal::IntervalRing>(block_at + offset);
}

// `sample_of_slot`: the thread's sample-table slots as indexes in its sample list.
void read_intervals(v1::ThreadProfile& t, const Mapped& m, uint64_t block_at, const ThreadRecord& r,
                    uint64_t forks, uint64_t nodes, uint32_t counters,
                    const std::unordered_map<uint32_t, uint32_t>& sample_of_slot) {
  const journal::IntervalRing* sampled = ring_at(m, block_at, r.intervals_offset);
  journal::ThreadIntervals ti;
  if (!sampled ||
      !journal::copy_thread_intervals(*sampled, ring_at(m, block_at, r.measured_offset), ti))
    return;
  t.set_interval_ns(ti.interval_ns);
  t.set_interval_coarsenings(ti.coarsenings);
  for (size_t i = 0; i < ti.sampled.size(); ++i) {
    const journal::IntervalRecord &s = ti.sampled[i], &w = ti.measured[i];
    if (!journal::holds_anything(s) && !journal::holds_anything(w)) continue;
    const journal::IntervalRecord& context = s.samples ? s : w;
    v1::Interval* in = t.add_interval();
    in->set_index(i);
    for (uint64_t ns : s.ns) in->add_class_ns(ns);
    in->set_samples(s.samples);
    in->set_last_state(context.last_state);
    in->set_fork_id(context.fork_id <= forks ? context.fork_id : 0);
    in->set_region_node(context.region_node <= nodes ? context.region_node : 0);
    if (std::any_of(s.counters, s.counters + counters, [](uint64_t c) { return c; }))
      for (uint32_t k = 0; k < counters && k < journal::kMaxCounters; ++k)
        in->add_counter(s.counters[k]);
    std::vector<uint32_t> lead_samples, picks;
    journal::lead_samples(s, sample_of_slot, lead_samples, picks);
    for (size_t k = 0; k < lead_samples.size(); ++k) {
      in->add_lead_sample(lead_samples[k]);
      in->add_lead_samples(picks[k]);
    }
    if (!journal::holds_anything(w)) continue;
    for (uint64_t ns : w.ns) in->add_measured_ns(ns);
    in->set_measured_waits(w.samples);
  }
}

// The thread's long region instances and MPI calls, if its block has an event ring that can be
// read (a region whose node is not in the journal is left out, as a sample's context is).
void read_events(v1::ThreadProfile& t, const Mapped& m, uint64_t block_at, const ThreadRecord& r,
                 uint64_t nodes) {
  if (!r.events_offset || !m.holds(block_at + r.events_offset, sizeof(journal::EventRing))) return;
  const auto* live = m.at<journal::EventRing>(block_at + r.events_offset);
  journal::EventRingCopy ring;
  if (!live || !journal::copy_event_ring(*live, ring)) return;
  t.set_event_min_ns(ring.min_ns);
  t.set_events_dropped(ring.dropped);
  for (const journal::EventRecord& e : ring.events) {
    if (e.kind == journal::kEventRegion && (e.id == 0 || e.id > nodes)) continue;
    v1::Event* out = t.add_event();
    out->set_start_ns(e.start_ns);
    out->set_end_ns(e.end_ns);
    out->set_kind(e.kind);
    out->set_id(e.id);
    out->set_site(e.site);
  }
}

}  // namespace

std::vector<v1::ThreadProfile> read_threads(const Mapped& m, const FileHeader& h, TableBuilder& b,
                                            uint64_t duration_ns, bool cpu_clock, uint64_t forks,
                                            uint64_t nodes, uint32_t counters) {
  std::vector<v1::ThreadProfile> out;
  const uint32_t n = blocks_to_read(m, h);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t at = h.blocks_offset + uint64_t(i) * h.block_bytes;
    const ThreadRecord* r = m.at<ThreadRecord>(at);
    if (!r || r->ready.load() != 1 || r->index != i) continue;
    v1::ThreadProfile t;
    t.set_index(i);
    t.set_tid(uint64_t(r->tid));
    t.set_is_main(flag(r->is_main));
    t.set_start_ns(r->start_ns);
    const uint64_t end = r->end_ns.load();
    t.set_end_ns(end ? end : std::max(duration_ns, r->start_ns));
    uint64_t cpu = r->cpu_ns_at_exit.load();
    if (!cpu && cpu_clock) cpu = r->last_clock_ns;
    t.set_cpu_time_ns(cpu);
    t.set_truncated_samples(r->truncated_samples);
    t.set_unwind_failed(r->unwind_failed);
    t.set_short_stack_samples(r->short_stack_samples);
    t.set_parallel_wall_ns(r->parallel_wall_ns);
    t.set_unmeasured_waits(r->unmeasured_waits);
    set_counter_facts(t, *r, counters);
    t.set_run_delay_ns(r->run_delay_ns);
    t.set_involuntary_switches(r->involuntary_switches);
    t.set_cpus(text::cpu_list(r->cpu_mask, 16));
    t.set_timer_failed(r->timer_errno ? 1 : 0);
    t.set_timer_errno(r->timer_errno);
    t.set_is_omp_thread(flag(r->is_omp_thread));
    t.set_mpi_library_thread(flag(r->mpi_library_thread));
    t.set_sampling_lost(r->sampling_lost);
    uint64_t armed = r->armed_clock_ns;
    if (!armed && r->last_clock_ns > r->grid_origin_ns)
      armed = r->last_clock_ns - r->grid_origin_ns;
    t.set_armed_clock_ns(armed);
    t.set_periods_sampled(r->strata_sampled);
    const std::unordered_map<uint32_t, uint32_t> sample_of_slot =
        read_samples(t, m, at, *r, b, forks, nodes, counters);
    add_call_in_progress(t, *r, h.start_mono_ns + duration_ns, b, forks, nodes);
    set_now(t, *r, h.start_mono_ns);
    read_intervals(t, m, at, *r, forks, nodes, counters, sample_of_slot);
    add_call_to_intervals(t, duration_ns);
    read_events(t, m, at, *r, nodes);
    if (const auto* tab = m.at<TableHeader>(at + r->samples_offset)) {
      t.set_dropped_samples(tab->dropped_samples);
      t.set_dropped_weight_ns(tab->dropped_weight_ns);
    }
    if (const auto* tab = m.at<TableHeader>(at + r->waits_offset)) {
      t.set_waits_dropped(tab->dropped_samples + r->open_waits_overflow);
      t.set_waits_dropped_ns(tab->dropped_weight_ns);
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<v1::RegionStats> read_region_stats(const Mapped& m, const FileHeader& h,
                                               const std::vector<v1::RegionNode>& nodes,
                                               uint32_t counters) {
  std::vector<v1::RegionStats> out;
  const uint32_t n = blocks_to_read(m, h);
  const size_t bound = std::min<size_t>(nodes.size() + 1, journal::kJournalRegionNodes);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t at = h.blocks_offset + uint64_t(i) * h.block_bytes;
    const ThreadRecord* r = m.at<ThreadRecord>(at);
    const uint64_t bytes = sizeof(journal::RegionStatsRecord) * journal::kJournalRegionNodes;
    if (!r || r->ready.load() != 1 || r->index != i || !r->regions_offset ||
        !m.holds(at + r->regions_offset, bytes))
      continue;
    const auto* stats = m.at<journal::RegionStatsRecord>(at + r->regions_offset);
    std::map<uint64_t, size_t> row_of;  // node -> index in out
    for (size_t node = 1; node < bound; ++node) {
      const journal::RegionStatsRecord& st = stats[node];
      if (!st.calls && !st.wall_ns && !st.cpu_ns) continue;
      v1::RegionStats rs;
      rs.set_node_id(node);
      rs.set_thread_index(i);
      rs.set_calls(st.calls);
      rs.set_wall_ns(st.wall_ns);
      rs.set_cpu_ns(st.cpu_ns);
      rs.set_self_wall_ns(st.wall_ns);
      rs.set_self_cpu_ns(st.cpu_ns);
      for (uint32_t c = 0; c < counters && c < journal::kMaxCounters; ++c) {
        rs.add_counter(st.counters[c]);
        rs.add_self_counter(st.counters[c]);
      }
      row_of[node] = out.size();
      out.push_back(rs);
    }
    for (const auto& [node, row] : row_of) {
      const auto parent = row_of.find(nodes[node - 1].parent_id());
      if (parent == row_of.end()) continue;
      v1::RegionStats& p = out[parent->second];
      p.set_self_wall_ns(p.self_wall_ns() - out[row].wall_ns());
      p.set_self_cpu_ns(p.self_cpu_ns() - out[row].cpu_ns());
      for (int c = 0; c < p.self_counter_size() && c < out[row].counter_size(); ++c)
        p.set_self_counter(c, p.self_counter(c) - out[row].counter(c));
    }
  }
  return out;
}

}  // namespace omprof::format
