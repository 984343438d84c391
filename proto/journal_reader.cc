#include "proto/journal_reader.h"

#include <fcntl.h>
#include <google/protobuf/stubs/logging.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "proto/format.h"
#include "proto/interval_ring.h"
#include "proto/journal.h"
#include "proto/journal_file.h"
#include "proto/mpi_calls.h"
#include "proto/profile_reader.h"
#include "proto/state_codes.h"
#include "proto/text.h"

namespace omprof::format {

namespace {

using journal::FileHeader;
using journal::SampleEntry;
using journal::TableHeader;
using journal::ThreadRecord;

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw ProfileError(name + ": " + what);
}

// Accumulates the profile's tables, ids dense from 1 as the format requires.
class Builder {
 public:
  uint64_t string(const std::string& s) {
    auto [it, added] = string_ids_.emplace(s, strings_.size());
    if (added) strings_.push_back(s);
    return it->second;
  }
  uint64_t location(uint64_t address) {
    auto [it, added] = location_ids_.emplace(address, locations_.size() + 1);
    if (added) {
      v1::Location l;
      l.set_id(it->second);
      l.set_address(address);
      l.set_mapping_id(mapping_of(address));
      locations_.push_back(l);
    }
    return it->second;
  }
  uint64_t stack(const uint64_t* frames, uint32_t depth, uint16_t flags) {
    std::string key(reinterpret_cast<const char*>(frames), depth * sizeof(uint64_t));
    key.push_back(char(flags));
    auto [it, added] = stack_ids_.emplace(std::move(key), stacks_.size() + 1);
    if (added) {
      v1::Stack s;
      s.set_id(it->second);
      for (uint32_t i = 0; i < depth; ++i) s.add_location_id(location(frames[i]));
      s.set_truncated(flags & journal::kStackTruncated);
      s.set_unwind_failed(flags & journal::kStackUnwindFailed);
      stacks_.push_back(s);
    }
    return it->second;
  }
  void add_module(const v1::JournalModule& jm) {
    if (jm.segment().empty()) return;
    v1::Mapping m;
    m.set_id(mappings_.size() + 1);
    m.set_start(jm.segment(0).start());
    m.set_limit(jm.segment(jm.segment_size() - 1).limit());
    m.set_file_offset(jm.segment(0).file_offset());
    m.set_filename(string(jm.path()));
    m.set_build_id(string(jm.build_id()));
    m.set_load_bias(jm.load_bias());
    m.set_is_omp_runtime(jm.is_omp_runtime());
    mappings_.push_back(m);
    module_segments_.push_back(jm);
  }
  void mark_unloaded(uint64_t start) {
    for (auto& m : mappings_)
      if (m.start() == start && !m.unloaded()) {
        m.set_unloaded(true);
        return;
      }
  }

  std::vector<std::string> strings_{""};
  std::vector<v1::Mapping> mappings_;
  std::vector<v1::Location> locations_;
  std::vector<v1::Stack> stacks_;

 private:
  // The module whose segment holds the address; the latest loaded wins (a reused range).
  uint64_t mapping_of(uint64_t address) const {
    for (size_t i = module_segments_.size(); i-- > 0;)
      for (const auto& seg : module_segments_[i].segment())
        if (address >= seg.start() && address < seg.limit()) return i + 1;
    return 0;
  }
  std::unordered_map<std::string, uint64_t> string_ids_{{"", 0}};
  std::unordered_map<uint64_t, uint64_t> location_ids_;
  std::unordered_map<std::string, uint64_t> stack_ids_;
  std::vector<v1::JournalModule> module_segments_;
};

struct Entries {
  v1::Header start;
  bool has_start = false;
  v1::JournalOmp omp;
  std::map<uint64_t, v1::JournalFork> forks;
  std::map<uint32_t, std::string> region_names;
  std::map<uint64_t, v1::RegionNode> region_nodes;
  uint64_t unreadable = 0;
};

// Reads the entry area in order; modules go straight to the builder (ids in load order).
Entries read_entries(const Mapped& m, const FileHeader& h, Builder& b) {
  Entries e;
  const uint64_t end = std::min<uint64_t>(h.entries_reserved.load(), h.entries_capacity);
  for (uint64_t at = 0; at + sizeof(journal::EntryHeader) <= end;) {
    const auto* eh = m.at<journal::EntryHeader>(h.entries_offset + at);
    const uint32_t length = eh ? eh->length.load() : 0;
    if (length == 0 || at + journal::entry_bytes(length) > end) break;
    const uint64_t payload = h.entries_offset + at + sizeof(journal::EntryHeader);
    at += journal::entry_bytes(length);
    v1::JournalEntry entry;
    const google::protobuf::LogSilencer quiet;  // corrupt strings: our error, not its log
    if (eh->committed.load() != 1 || !entry.ParseFromArray(m.bytes(payload), int(length))) {
      ++e.unreadable;
      continue;
    }
    switch (entry.kind_case()) {
      case v1::JournalEntry::kStart:
        e.start = entry.start();
        e.has_start = true;
        break;
      case v1::JournalEntry::kModule:
        b.add_module(entry.module());
        break;
      case v1::JournalEntry::kUnloaded:
        b.mark_unloaded(entry.unloaded());
        break;
      case v1::JournalEntry::kOmp:
        e.omp = entry.omp();
        break;
      case v1::JournalEntry::kFork:
        e.forks[entry.fork().id()] = entry.fork();
        break;
      case v1::JournalEntry::kRegion:
        e.region_names[entry.region().id()] = entry.region().name();
        break;
      case v1::JournalEntry::kRegionNode:
        e.region_nodes[entry.region_node().id()] = entry.region_node();
        break;
      default:
        break;  // a newer collector's entry
    }
  }
  if (!e.has_start) {
    // Nothing reserved: the process died before its first entry. Else the area is damaged.
    if (end == 0) fail(m.path(), "truncated journal (no start entry: the process died at start)");
    fail(m.path(), "corrupt journal: no readable start entry in its entry area (" +
                       std::to_string(e.unreadable) + " unreadable entries)");
  }
  return e;
}

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

}  // namespace

bool is_journal_path(const std::string& path) {
  const std::string suffix = journal::kSuffix;
  return path.size() > suffix.size() &&
         path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

v1::Ending observe_ending(const std::string& journal_path) {
  v1::Ending e;
  e.set_kind(v1::Ending::ENDING_NOT_OBSERVED);
  // Alive only if a process of that pid maps this very file (pids are reused).
  struct stat js {};
  if (stat(journal_path.c_str(), &js) != 0) return e;
  const size_t dot = journal_path.rfind(journal::kSuffix);
  std::string stem = journal_path.substr(0, dot);
  // <program>.<pid>[.rank<R>][.<n>]: try each numeric component as the pid.
  std::istringstream parts(stem.substr(stem.rfind('/') + 1));
  for (std::string part; std::getline(parts, part, '.');) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream maps("/proc/" + part + "/maps");
    for (std::string line; std::getline(maps, line);) {
      std::istringstream f(line);
      std::string range, perms, offset, dev;
      uint64_t inode = 0;
      f >> range >> perms >> offset >> dev >> inode;
      if (inode == uint64_t(js.st_ino)) {
        e.set_kind(v1::Ending::ENDING_RUNNING);
        return e;
      }
    }
  }
  return e;
}

namespace {

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
                          Builder& b, uint64_t forks, uint64_t nodes) {
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
                                                    uint64_t at, const ThreadRecord& r, Builder& b,
                                                    uint64_t forks, uint64_t nodes,
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

// How long a process that died unobserved ran: up to the latest moment its threads recorded
// (a sample, a thread's end), which is at most a sampling period before it died, or the
// journal's mtime when none recorded anything (the kernel does not update the mtime for
// stores to a shared mapping, so it is often far too early).
uint64_t last_activity_ns(const Mapped& m, const FileHeader& h, uint64_t start_unix_ns) {
  uint64_t last = 0;
  const uint32_t n = blocks_to_read(m, h);
  for (uint32_t i = 0; i < n; ++i) {
    const ThreadRecord* r = m.at<ThreadRecord>(h.blocks_offset + uint64_t(i) * h.block_bytes);
    if (!r || r->ready.load() != 1 || r->index != i) continue;
    last = std::max({last, r->start_ns, r->end_ns.load()});
    if (r->last_sample_mono_ns > h.start_mono_ns)
      last = std::max(last, r->last_sample_mono_ns - h.start_mono_ns);
  }
  if (last) return last;
  return m.mtime_ns() > start_unix_ns ? m.mtime_ns() - start_unix_ns : 0;
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

// Thread blocks marked ready, as ThreadProfile messages. Threads still running when the
// process died end at `duration_ns`; their CPU time is the sampling clock at their last sample
// (within one period) when that clock is CPU time.
std::vector<v1::ThreadProfile> read_threads(const Mapped& m, const FileHeader& h, Builder& b,
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

// Every thread's explicit-region statistics (its closed instances; those of nodes the journal
// has), self times computed from the node tree as the collector computes them (inclusive minus
// the thread's children's).
// `counters`: the events each region counted exactly (0: not --region-counters).
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

// Fork records with dense ids from 1: the first id missing (an entry lost) ends the table.
// What the threads counted but had not added to their fork records yet, by record.
struct Unflushed {
  std::map<uint64_t, uint64_t> instances, wall_ns;
};
Unflushed unflushed_fork_counts(const Mapped& m, const FileHeader& h) {
  Unflushed u;
  const uint32_t n = blocks_to_read(m, h);
  for (uint32_t i = 0; i < n; ++i) {
    const ThreadRecord* t = m.at<ThreadRecord>(h.blocks_offset + uint64_t(i) * h.block_bytes);
    if (!t || t->ready.load() != 1) continue;
    if (t->uncounted_fork_id) u.instances[t->uncounted_fork_id] += t->uncounted_forks;
    if (t->wall_fork_id) u.wall_ns[t->wall_fork_id] += t->wall_unflushed_ns;
  }
  return u;
}

// Fork record `r`'s counts as the collector kept them: its ForkCounts and the threads' part;
// `counters`: its members' counter events (0: not --region-counters).
void set_fork_counts(v1::ForkRecord& r, const Mapped& m, const FileHeader& h, Unflushed& u,
                     uint32_t counters) {
  const uint64_t id = r.id();
  if (!h.forks_offset || id == 0 || id > h.forks_capacity) return;
  const uint64_t at = h.forks_offset + (id - 1) * sizeof(journal::ForkCounts);
  if (!m.holds(at, sizeof(journal::ForkCounts))) return;
  const auto* c = m.at<journal::ForkCounts>(at);
  r.set_instances(c->instances.load() + u.instances[id]);
  r.set_wall_ns(c->wall_ns.load() + u.wall_ns[id]);
  const uint64_t mask = c->team_size_mask.load();
  for (uint32_t bit = 0; bit < 64; ++bit)
    if (mask & (uint64_t(1) << bit)) r.add_team_sizes(bit + 1);
  if (!r.task())
    for (uint32_t i = 0; i < counters && i < journal::kMaxCounters; ++i)
      r.add_counter(c->counters[i].load());
}

std::vector<v1::ForkRecord> fork_records(const Entries& e, Builder& b, const Mapped& m,
                                         const FileHeader& h, uint32_t counters) {
  std::vector<v1::ForkRecord> out;
  Unflushed unflushed = unflushed_fork_counts(m, h);
  for (const auto& [id, f] : e.forks) {
    if (id != out.size() + 1 || f.parent_id() >= id) break;
    v1::ForkRecord r;
    r.set_id(id);
    r.set_parent_id(f.parent_id());
    std::vector<uint64_t> frames(f.frame().begin(), f.frame().end());
    r.set_stack_id(b.stack(frames.data(), uint32_t(frames.size()),
                           f.truncated() ? journal::kStackTruncated : 0));
    if (f.codeptr()) r.set_codeptr_location_id(b.location(f.codeptr()));
    r.set_task(f.task());
    set_fork_counts(r, m, h, unflushed, counters);
    out.push_back(r);
  }
  return out;
}

// Region nodes with dense ids from 1, named by string index.
std::vector<v1::RegionNode> region_nodes(const Entries& e, Builder& b) {
  std::vector<v1::RegionNode> out;
  for (const auto& [id, n] : e.region_nodes) {
    auto name = e.region_names.find(uint32_t(n.name()));
    if (id != out.size() + 1 || n.parent_id() >= id || name == e.region_names.end()) break;
    v1::RegionNode r = n;
    r.set_name(b.string(name->second));
    out.push_back(r);
  }
  return out;
}

class RecordWriter {
 public:
  template <typename Set>
  void add(Set set) {
    v1::Record r;
    set(r);
    const std::string body = r.SerializeAsString();
    uint64_t v = body.size();
    for (; v >= 0x80; v >>= 7) out_.push_back(char((v & 0x7f) | 0x80));
    out_.push_back(char(v));
    out_ += body;
    ++count_;
  }
  std::string& bytes() { return out_; }
  uint64_t count() const { return count_; }

 private:
  std::string out_{kMagic};
  uint64_t count_ = 0;
};

v1::Header recovered_header(const Entries& e, const v1::Ending& ending, uint64_t duration_ns) {
  v1::Header h = e.start;
  h.set_format_major(kMajor);
  h.set_format_minor(kMinor);
  h.set_duration_ns(duration_ns);
  h.set_omp_runtime(e.omp.omp_runtime());
  h.set_ompt_active(e.omp.ompt_active());
  h.set_omp_note(e.omp.omp_note());
  h.set_exact_waits(e.omp.exact_waits());
  h.set_off_cpu_waits(e.omp.off_cpu_waits());
  h.set_symbolize_offline(true);
  h.set_recovered(true);
  *h.mutable_ending() = ending;
  return h;
}

// Whether the threads hold exact MPI waits: the MPI wrappers measured the calls (the header the
// collector journals at start cannot know it yet).
bool has_mpi_waits(const std::vector<v1::ThreadProfile>& threads) {
  for (const auto& t : threads)
    for (const auto& w : t.wait())
      if (is_mpi_state(w.omp_state())) return true;
  return false;
}

}  // namespace

std::string recover_profile(const std::string& journal_path, const v1::Ending& ending,
                            uint64_t end_unix_ns) {
  const Mapped m(journal_path);
  const FileHeader& h = checked_header(m);
  Builder b;
  const Entries e = read_entries(m, h, b);
  const uint64_t start = e.start.start_time_unix_ns();
  const uint64_t duration = !end_unix_ns          ? last_activity_ns(m, h, start)
                            : end_unix_ns > start ? end_unix_ns - start
                                                  : 0;
  const bool cpu_clock = e.start.clock() == v1::CLOCK_CPU || e.start.clock() == v1::CLOCK_TASK;
  // Events counted exactly in regions (0: not --region-counters).
  const uint32_t region_counters =
      e.start.region_counters_exact() ? uint32_t(e.start.counter_event_size()) : 0;
  const std::vector<v1::ForkRecord> forks = fork_records(e, b, m, h, region_counters);
  const std::vector<v1::RegionNode> nodes = region_nodes(e, b);
  const std::vector<v1::ThreadProfile> threads =
      read_threads(m, h, b, duration, cpu_clock, forks.size(), nodes.size(),
                   uint32_t(e.start.counter_event_size()));

  RecordWriter w;
  w.add([&](v1::Record& r) {
    *r.mutable_header() = recovered_header(e, ending, duration);
    if (has_mpi_waits(threads)) r.mutable_header()->set_mpi_calls_exact(true);
  });
  w.add([&](v1::Record& r) {
    for (const auto& s : b.strings_) r.mutable_strings()->add_entries(s);
  });
  for (const auto& x : b.mappings_) w.add([&](v1::Record& r) { *r.mutable_mapping() = x; });
  for (const auto& x : b.locations_) w.add([&](v1::Record& r) { *r.mutable_location() = x; });
  for (const auto& x : b.stacks_) w.add([&](v1::Record& r) { *r.mutable_stack() = x; });
  for (const auto& x : threads) w.add([&](v1::Record& r) { *r.mutable_thread() = x; });
  for (const auto& x : forks) w.add([&](v1::Record& r) { *r.mutable_fork() = x; });
  for (const auto& x : nodes) w.add([&](v1::Record& r) { *r.mutable_region_node() = x; });
  for (const auto& x : read_region_stats(m, h, nodes, region_counters))
    w.add([&](v1::Record& r) { *r.mutable_region_stats() = x; });
  const uint64_t records = w.count();
  w.add([&](v1::Record& r) {
    v1::Trailer* t = r.mutable_trailer();
    t->set_record_count(records);
    t->set_threads_untracked(h.threads_untracked.load());
    t->set_threads_before_start(h.threads_before_start);
    t->set_timer_create_failures(h.timer_create_failures.load());
    t->set_fork_records_dropped(h.fork_records_dropped.load() + (e.forks.size() - forks.size()));
  });
  return std::move(w.bytes());
}

}  // namespace omprof::format
