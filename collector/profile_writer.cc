#include "collector/profile_writer.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/region_context.h"
#include "collector/run_report.h"
#include "collector/runtime.h"
#include "collector/sampler.h"
#include "collector/thread_registry.h"
#include "collector/wire.h"
#include "omp/ompt_tool.h"
#include "proto/coverage.h"
#include "unwind/module_map.h"
#include "unwind/symbolizer.h"

namespace omprof {

namespace {

constexpr uint32_t kFormatMajor = 1;
constexpr uint32_t kFormatMinor = 3;  // 1.1: regions; 1.2: exact waits; 1.3: coverage
constexpr char kMagic[8] = {'\x89', 'O', 'M', 'P', 'R', 'O', 'F', '\n'};

// Record field numbers (proto/omprof.proto, message Record).
enum RecordField : uint32_t {
  kHeader = 1,
  kStrings = 2,
  kMapping = 3,
  kFunction = 4,
  kLocation = 5,
  kStack = 6,
  kThread = 7,
  kFork = 8,
  kRegionNode = 9,
  kRegionStats = 10,
  kTrailer = 15,
};

class StringTable {
 public:
  StringTable() { index(""); }
  uint64_t index(const std::string& s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    ids_.emplace(s, entries_.size());
    entries_.push_back(s);
    return entries_.size() - 1;
  }
  const std::vector<std::string>& entries() const { return entries_; }

 private:
  std::unordered_map<std::string, uint64_t> ids_;
  std::vector<std::string> entries_;
};

struct VectorHash {
  size_t operator()(const std::vector<uint64_t>& v) const {
    size_t h = v.size();
    for (uint64_t x : v) h = h * 1000003u ^ std::hash<uint64_t>()(x);
    return h;
  }
};

class RecordStream {
 public:
  void add(uint32_t field, const wire::Encoder& msg) {
    wire::Encoder rec;
    rec.message(field, msg);
    wire::Encoder len;
    len.varint(rec.size());
    out_ += len.bytes();
    out_ += rec.bytes();
    ++count_;
  }
  const std::string& bytes() const { return out_; }
  uint64_t count() const { return count_; }

 private:
  std::string out_;
  uint64_t count_ = 0;
};

std::string read_file(const char* path) {
  std::string s;
  FILE* f = std::fopen(path, "rb");
  if (!f) return s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

std::vector<std::string> command_line() {
  std::vector<std::string> argv;
  std::string raw = read_file("/proc/self/cmdline");
  size_t start = 0;
  for (size_t i = 0; i < raw.size(); ++i)
    if (raw[i] == 0) {
      argv.push_back(raw.substr(start, i - start));
      start = i + 1;
    }
  return argv;
}

std::string base_name(const std::string& p) {
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

int mpi_rank_from_env() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return -1;
}

}  // namespace

int create_profile_file(const std::string& dir, const std::string& stem, std::string& path,
                        std::string& error) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    path = dir + "/" + stem + (attempt ? "." + std::to_string(attempt) : "") + ".omprof";
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST) {
      error = "cannot create '" + path + "': " + std::strerror(errno);
      return -1;
    }
  }
  error = "too many profiles named '" + dir + "/" + stem + ".*.omprof'";
  return -1;
}

void write_profile(uint64_t duration_ns) {
  // The program may have used up every other descriptor; what follows opens files one at a time.
  release_reserved_descriptor();
  // OMPROF_DEBUG=1: how long each shutdown phase takes, on stderr.
  const char* debug_env = std::getenv("OMPROF_DEBUG");
  const bool debug = debug_env && *debug_env == '1';
  uint64_t phase_start = monotonic_ns();
  auto phase = [&](const char* name) {
    if (!debug) return;
    uint64_t now = monotonic_ns();
    std::fprintf(stderr, "omprof: debug: %s took %.1f ms\n", name, double(now - phase_start) / 1e6);
    phase_start = now;
  };
  Runtime& rt = runtime();
  const Config& cfg = rt.config;
  StringTable strings;
  RecordStream body;

  const std::vector<unwind::Module> modules = unwind::recorded_modules();
  const omp::RuntimeStatus omp_status = omp::runtime_status(modules);
  const std::vector<omp::ForkSnapshot> forks = omp::fork_snapshots();

  // Stacks, interned across threads and fork records.
  std::unordered_map<std::vector<uint64_t>, uint64_t, VectorHash> stack_ids;
  std::vector<std::pair<const std::vector<uint64_t>*, uint16_t>> stack_list;
  auto intern_stack = [&](std::vector<uint64_t> frames, uint16_t flags) {
    frames.push_back(flags);  // what is missing is part of the identity
    auto it = stack_ids.find(frames);
    if (it != stack_ids.end()) return it->second;
    uint64_t id = stack_list.size() + 1;
    auto ins = stack_ids.emplace(std::move(frames), id).first;
    stack_list.push_back({&ins->first, flags});
    return id;
  };

  struct ThreadOut {
    ThreadState* ts;
    std::vector<std::pair<uint64_t, const SampleEntry*>> samples;
    std::vector<std::pair<uint64_t, const SampleEntry*>> waits;  // exact OpenMP waits
  };
  std::vector<ThreadOut> threads;
  uint64_t total_samples = 0, dropped = 0, truncated = 0;
  for (uint32_t i = 0; i < thread_count(); ++i) {
    ThreadState* ts = thread_at(i);
    if (!ts) continue;
    ThreadOut out{ts, {}, {}};
    for (uint32_t k = 0; k < ts->table.used(); ++k) {
      const SampleEntry& e = ts->table.used_entry(k);
      const uint64_t* f = ts->table.frames_of(e);
      out.samples.push_back({intern_stack(std::vector<uint64_t>(f, f + e.depth), e.flags), &e});
      total_samples += e.count;
    }
    for (uint32_t k = 0; k < ts->waits.used(); ++k) {
      const SampleEntry& e = ts->waits.used_entry(k);
      const uint64_t* f = ts->waits.frames_of(e);
      out.waits.push_back({intern_stack(std::vector<uint64_t>(f, f + e.depth), 0), &e});
    }
    dropped += ts->table.dropped_samples();
    truncated += ts->truncated_samples;
    threads.push_back(std::move(out));
  }
  std::vector<uint64_t> fork_stack_ids;
  for (const auto& f : forks)
    fork_stack_ids.push_back(intern_stack(f.frames, f.truncated ? kStackTruncated : 0));

  // Every distinct address, symbolized once.
  std::vector<uint64_t> addresses;
  for (const auto& s : stack_list)
    addresses.insert(addresses.end(), s.first->begin(), s.first->end() - 1);
  for (const auto& f : forks)
    if (f.codeptr) addresses.push_back(f.codeptr);
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());

  phase("collecting samples");
  const char* system_lines = std::getenv("OMPROF_SYSTEM_LINES");
  // By default the viewer symbolizes from the files on disk (verified by build-id), so the run
  // pays only for the vdso, which has no file; `omprof run --symbolize` does it all here, for
  // binaries that will not exist later.
  const char* in_process_env = std::getenv("OMPROF_SYMBOLIZE");
  const bool in_process = in_process_env && *in_process_env == '1';
  std::vector<unwind::Module> to_symbolize = modules;
  if (!in_process)
    for (auto& m : to_symbolize)
      if (!m.is_vdso) m.path.clear();
  unwind::Symbolizer symbolizer(to_symbolize, system_lines && *system_lines == '1');
  phase("loading symbols");
  std::unordered_map<uint64_t, uint64_t> location_ids;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> function_ids;
  std::vector<wire::Encoder> function_records, location_records;
  for (uint64_t addr : addresses) {
    unwind::Symbolized sym = symbolizer.lookup(addr);
    wire::Encoder loc;
    uint64_t id = location_ids.size() + 1;
    location_ids[addr] = id;
    loc.u64(1, id);
    loc.u64(2, sym.module >= 0 ? uint64_t(sym.module) + 1 : 0);
    loc.u64(3, addr);
    for (const auto& fr : sym.frames) {
      auto key = std::make_tuple(fr.function, fr.system_name, fr.file);
      auto it = function_ids.find(key);
      if (it == function_ids.end()) {
        uint64_t fid = function_ids.size() + 1;
        it = function_ids.emplace(key, fid).first;
        wire::Encoder fn;
        fn.u64(1, fid);
        fn.u64(2, strings.index(fr.function));
        fn.u64(3, strings.index(fr.system_name));
        fn.u64(4, strings.index(fr.file));
        function_records.push_back(std::move(fn));
      }
      wire::Encoder line;
      line.u64(1, it->second);
      line.i64(2, fr.line);
      loc.message(4, line);
    }
    location_records.push_back(std::move(loc));
  }

  phase("symbolizing addresses");
  // Header.
  wire::Encoder h;
  std::vector<std::string> argv = command_line();
  std::string program = modules.empty() ? "" : modules.front().path;
  char host[HOST_NAME_MAX + 1] = {0};
  gethostname(host, sizeof host - 1);
  h.u64(1, kFormatMajor);
  h.u64(2, kFormatMinor);
  h.str(3, OMPROF_VERSION);
  h.str(4, program);
  for (const auto& a : argv) h.str(5, a);
  h.u64(6, uint64_t(getpid()));
  h.str(7, host);
  h.u64(8, rt.start_unix_ns);
  h.u64(9, duration_ns);
  h.u64(10, cfg.clock == ClockKind::kCpu ? 1 : cfg.clock == ClockKind::kWall ? 2 : 3);
  h.u64(11, cfg.rate_hz);
  h.u64(12, cfg.period_ns);
  h.u64(13, cfg.max_depth);
  h.u64(14, uint64_t(cfg.signo));
  h.str_nonempty(15, omp_status.runtime);
  h.boolean(16, omp_status.ompt_active);
  h.str_nonempty(17, omp_status.note);
  const int rank = mpi_rank_from_env();
  h.i32(18, rank);
  h.i32(19, -1);
  h.boolean(21, omp_status.ompt_active);  // exact OpenMP waits in ThreadProfile.wait
  h.boolean(22, !in_process);             // the viewer symbolizes (1.2)

  for (size_t i = 0; i < modules.size(); ++i) {
    const auto& m = modules[i];
    wire::Encoder mp;
    mp.u64(1, i + 1);
    mp.u64(2, m.start());
    mp.u64(3, m.limit());
    mp.u64(4, m.segments.empty() ? 0 : m.segments.front().file_offset);
    mp.u64(5, strings.index(m.path));
    mp.u64(6, strings.index(m.build_id));
    mp.u64(7, m.load_bias);
    mp.boolean(8, m.unloaded);
    mp.boolean(9, omp::is_runtime_module(m.path));
    body.add(kMapping, mp);
  }
  for (const auto& f : function_records) body.add(kFunction, f);
  for (const auto& l : location_records) body.add(kLocation, l);
  for (size_t i = 0; i < stack_list.size(); ++i) {
    wire::Encoder st;
    st.u64(1, i + 1);
    const auto& frames = *stack_list[i].first;
    std::vector<uint64_t> locs;
    for (size_t k = 0; k + 1 < frames.size(); ++k) locs.push_back(location_ids[frames[k]]);
    st.packed(2, locs.begin(), locs.end());
    st.boolean(3, stack_list[i].second & kStackTruncated);
    st.boolean(4, stack_list[i].second & kStackUnwindFailed);
    body.add(kStack, st);
  }
  for (const auto& t : threads) {
    ThreadState* ts = t.ts;
    // Split very large threads over several records (readers merge them by index).
    constexpr size_t kChunk = 100000;
    for (size_t start = 0; start == 0 || start < t.samples.size(); start += kChunk) {
      wire::Encoder th;
      th.u64(1, ts->index);
      th.u64(2, uint64_t(ts->tid));
      th.boolean(3, ts->is_main);
      if (start == 0) {
        th.u64(4, ts->start_ns);
        th.u64(5, ts->end_ns.load());
        th.u64(6, ts->cpu_ns_at_exit.load());
        th.u64(8, ts->table.dropped_samples());
        th.u64(9, ts->table.dropped_weight_ns());
        th.u64(10, ts->truncated_samples);
        th.u64(11, ts->timer_errno ? 1 : 0);
        th.i32(12, ts->timer_errno);
        th.u64(13, ts->unwind_failed);
        th.boolean(14, ts->is_omp_thread);
      }
      auto encode = [&](uint32_t field, uint64_t stack_id, const SampleEntry& e) {
        wire::Encoder s;
        s.u64(1, stack_id);
        s.u64(2, e.count);
        s.u64(3, e.weight_ns);
        s.u64(4, e.ctx.omp_state);
        s.u64(5, e.ctx.fork_id);
        s.u64(6, e.ctx.omp_thread_num);
        s.u64(7, e.ctx.region_node);
        th.message(field, s);
      };
      for (size_t k = start; k < t.samples.size() && k < start + kChunk; ++k)
        encode(7, t.samples[k].first, *t.samples[k].second);
      if (start == 0) {
        for (const auto& [stack_id, e] : t.waits) encode(15, stack_id, *e);
        th.u64(16, ts->waits.dropped_samples() + ts->open_waits_overflow);
        th.u64(17, ts->waits.dropped_weight_ns());
        th.u64(18, ts->sampling_lost);
        th.u64(19, ts->armed_clock_ns);
        th.u64(20, ts->strata_sampled);
      }
      body.add(kThread, th);
      if (t.samples.empty()) break;
    }
  }
  for (size_t i = 0; i < forks.size(); ++i) {
    const auto& f = forks[i];
    wire::Encoder fr;
    fr.u64(1, f.id);
    fr.u64(2, f.parent_id);
    fr.u64(3, fork_stack_ids[i]);
    fr.u64(4, f.codeptr ? location_ids[f.codeptr] : 0);
    fr.u64(5, f.instances);
    fr.packed(6, f.team_sizes.begin(), f.team_sizes.end());
    body.add(kFork, fr);
  }

  const RegionData regions = region_data();
  h.u64(20, uint64_t(regions.window_start_ns));
  for (const auto& [id, info] : regions.nodes) {
    wire::Encoder rn;
    rn.u64(1, id);
    rn.u64(2, info.parent);
    const bool named = info.region >= 1 && size_t(info.region) <= regions.names.size();
    rn.u64(3, strings.index(named ? regions.names[size_t(info.region) - 1] : ""));
    body.add(kRegionNode, rn);
  }
  for (const auto& t : regions.threads)
    for (const auto& n : t.nodes) {
      wire::Encoder rs;
      rs.u64(1, n.node);
      rs.u64(2, t.thread);
      rs.i64(3, n.calls);
      rs.i64(4, n.wall_ns);
      rs.i64(5, n.cpu_ns);
      rs.i64(6, n.self_wall_ns);
      rs.i64(7, n.self_cpu_ns);
      rs.boolean(8, n.active);
      body.add(kRegionStats, rs);
    }

  RecordStream head;
  head.add(kHeader, h);
  constexpr size_t kStringsPerRecord = 4096;
  const auto& entries = strings.entries();
  for (size_t start = 0; start < entries.size(); start += kStringsPerRecord) {
    wire::Encoder st;
    for (size_t k = start; k < entries.size() && k < start + kStringsPerRecord; ++k)
      st.str(1, entries[k]);
    head.add(kStrings, st);
  }
  wire::Encoder trailer;
  trailer.u64(1, head.count() + body.count());
  trailer.u64(2, threads_untracked());
  trailer.u64(3, rt.timer_create_failures.load());
  trailer.u64(4, rt.forwarded_signals.load());
  trailer.u64(5, omp::fork_records_dropped());
  const HandlerStats hs = handler_stats();
  trailer.u64(6, hs.calls);
  trailer.u64(7, hs.total_ns);
  RecordStream tail;
  tail.add(kTrailer, trailer);

  std::string stem = base_name(program.empty() ? "program" : program) + "." +
                     std::to_string(getpid()) + (rank >= 0 ? ".rank" + std::to_string(rank) : "");
  std::string path, error;
  int fd = create_profile_file(cfg.output_dir, stem, path, error);
  bool ok = fd >= 0;
  if (ok) {
    ok = write_all(fd, std::string(kMagic, 8)) && write_all(fd, head.bytes()) &&
         write_all(fd, body.bytes()) && write_all(fd, tail.bytes());
    if (::close(fd) != 0) ok = false;
    if (!ok) error = "cannot write '" + path + "': " + std::strerror(errno);
  }
  phase("encoding and writing");
  if (!ok) {
    std::fprintf(stderr, "omprof: profile not written: %s\n", error.c_str());
    append_manifest("error\t" + error);
    return;
  }
  append_manifest("ok\t" + path + "\t" + std::to_string(total_samples) + "\t" +
                  std::to_string(threads.size()) + "\t" + std::to_string(dropped) + "\t" +
                  std::to_string(truncated));
  format::Coverage coverage;
  coverage.period_ns = cfg.period_ns;
  for (const auto& t : threads)
    coverage.add_thread(t.ts->armed_clock_ns, t.ts->strata_sampled, t.ts->sampling_lost);
  if (coverage.incomplete()) {
    if (cfg.manifest.empty())
      std::fprintf(stderr, "omprof: warning: %s\n", coverage.describe().c_str());
    else
      append_manifest("warning\t" + coverage.describe());
  }
}

}  // namespace omprof
