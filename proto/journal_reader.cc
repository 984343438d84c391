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
#include "proto/journal_tables.h"
#include "proto/journal_threads.h"
#include "proto/mpi_calls.h"
#include "proto/profile_reader.h"
#include "proto/state_codes.h"
#include "proto/text.h"

namespace omprof::format {

namespace {

using journal::FileHeader;
using journal::ThreadRecord;

struct Entries {
  v1::Header start;
  bool has_start = false;
  v1::Header mpi;  // its mpi_* fields, the latest entry's
  bool has_mpi = false;
  v1::JournalOmp omp;
  std::map<uint64_t, v1::JournalFork> forks;
  std::map<uint32_t, std::string> region_names;
  std::map<uint64_t, v1::RegionNode> region_nodes;
  uint64_t unreadable = 0;
};

// Reads the entry area in order; modules go straight to the builder (ids in load order).
Entries read_entries(const Mapped& m, const FileHeader& h, TableBuilder& b) {
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
      case v1::JournalEntry::kMpi:
        e.mpi = entry.mpi();
        e.has_mpi = true;
        break;
      default:
        break;  // a newer collector's entry
    }
  }
  if (!e.has_start) {
    // Nothing reserved: the process died before its first entry. Else the area is damaged.
    if (end == 0)
      fail_journal(m.path(), "truncated journal (no start entry: the process died at start)");
    fail_journal(m.path(), "corrupt journal: no readable start entry in its entry area (" +
                               std::to_string(e.unreadable) + " unreadable entries)");
  }
  return e;
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

std::vector<v1::ForkRecord> fork_records(const Entries& e, TableBuilder& b, const Mapped& m,
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
std::vector<v1::RegionNode> region_nodes(const Entries& e, TableBuilder& b) {
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
  if (e.omp.has_measurement()) {  // how the run measures each state, as the profile says it
    *h.mutable_state_measurement() = e.omp.measurement().state_measurement();
    h.set_wrapper_states(e.omp.measurement().wrapper_states());
    h.set_taskwait_sampled(e.omp.measurement().taskwait_sampled());
  }
  if (e.has_mpi) {  // MPI_Init returned: the facts the start entry could only guess
    h.set_mpi_rank(e.mpi.mpi_rank());
    h.set_mpi_size(e.mpi.mpi_size());
    h.set_mpi_library(e.mpi.mpi_library());
    h.set_mpi_thread_level(e.mpi.mpi_thread_level());
    h.set_mpi_calls_exact(e.mpi.mpi_calls_exact());
    h.set_mpi_note(e.mpi.mpi_note());
    h.set_mpi_init_end_ns(e.mpi.mpi_init_end_ns());
    h.set_mpi_finalize_start_ns(e.mpi.mpi_finalize_start_ns());
    h.set_mpi_cpu_exact(e.mpi.mpi_cpu_exact());
  }
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
                            uint64_t end_unix_ns, JournalCopies* copies) {
  const Mapped m(journal_path, copies);
  const FileHeader& h = checked_header(m);
  TableBuilder b;
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
