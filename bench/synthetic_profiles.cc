// Writes the profiles of a synthetic MPI+OpenMP job for the viewer's scale benchmark
// (bench/viewer_scale.sh): RANKS rank profiles of THREADS threads each, SAMPLES samples and
// STACKS distinct stacks in all, over deep call paths of 2,000 functions (symbols resolved, as
// `omprof run --symbolize` writes them, so no binary is needed), and REGIONS explicit-region
// paths (a tree; each rank runs a rank-dependent subset of it, as rank-conditional code does).
//   synthetic_profiles DIR [SAMPLES=1000000] [STACKS=100000] [RANKS=8] [THREADS=16] [REGIONS=0]
//                      [same-stacks: every rank the same STACKS / RANKS stacks]
#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "omprof.pb.h"
#include "proto/format.h"
#include "proto/state_codes.h"

namespace v1 = omprof::v1;

namespace {

constexpr int kFunctions = 2000;
constexpr int kLinesPerFunction = 3;

class Writer {
 public:
  explicit Writer(const std::string& path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd_ < 0) {
      std::perror(path.c_str());
      std::exit(1);
    }
    out_ = std::make_unique<google::protobuf::io::FileOutputStream>(fd_);
    google::protobuf::io::CodedOutputStream c(out_.get());
    c.WriteRaw(omprof::format::kMagic.data(), int(omprof::format::kMagic.size()));
  }
  void add(const v1::Record& r) {
    google::protobuf::io::CodedOutputStream c(out_.get());
    c.WriteVarint64(r.ByteSizeLong());
    r.SerializeToCodedStream(&c);
    ++records_;
  }
  uint64_t records() const { return records_; }
  ~Writer() { out_->Close(); }

 private:
  int fd_ = -1;
  std::unique_ptr<google::protobuf::io::FileOutputStream> out_;
  uint64_t records_ = 0;
};

// Region node n (1-based) hangs under a node with a smaller id, so parents come first; a rank
// runs node n unless n % 7 == rank % 7 (and then none of n's subtree: its descendants are
// skipped with it).
uint64_t region_parent(uint64_t n) {
  return n <= 4 ? 0 : (n * 2654435761u) % (n - 1) + 1;
}

std::vector<bool> regions_run_by(int rank, uint64_t regions) {
  std::vector<bool> runs(regions + 1, true);
  for (uint64_t n = 1; n <= regions; ++n)
    runs[n] = n % 7 != uint64_t(rank % 7) && (region_parent(n) == 0 || runs[region_parent(n)]);
  return runs;
}

void write_rank(const std::string& dir, int rank, int ranks, int threads, uint64_t samples,
                uint64_t stacks, uint64_t regions, bool same_stacks, std::mt19937_64& rng) {
  char name[64];
  std::snprintf(name, sizeof name, "/app.%d.rank%04d.omprof", 1000 + rank, rank);
  Writer w(dir + name);
  v1::Record r;
  v1::Header* h = r.mutable_header();
  h->set_format_major(omprof::format::kMajor);
  h->set_format_minor(omprof::format::kMinor);
  h->set_collector_version("synthetic");
  h->set_program("/synthetic/app");
  h->add_argv("/synthetic/app");
  h->set_pid(1000 + uint64_t(rank));
  h->set_hostname("node" + std::to_string(rank / 4));
  h->set_duration_ns(uint64_t(10e9));
  h->set_clock(v1::CLOCK_TASK);
  h->set_rate_hz(1000);
  h->set_period_ns(1000000);
  h->set_max_depth(256);
  h->set_omp_runtime("libomp.so.5");
  h->set_ompt_active(true);
  h->set_mpi_rank(rank);
  h->set_mpi_size(ranks);
  h->set_symbolize_offline(true);
  h->set_taskwait_sampled(true);
  w.add(r);

  r.Clear();
  v1::StringTable* st = r.mutable_strings();
  st->add_entries("");
  st->add_entries("/synthetic/app");
  for (int f = 0; f < kFunctions; ++f)
    st->add_entries("physics::kernel_" + std::to_string(f) + "(int, double const*, double*)");
  for (int f = 0; f < 50; ++f) st->add_entries("src/module_" + std::to_string(f) + ".cc");
  st->add_entries("main");
  for (uint64_t n = 1; n <= regions; ++n) st->add_entries("phase_" + std::to_string(n));
  w.add(r);
  const uint64_t main_name = 2 + kFunctions + 50;
  const std::vector<bool> runs = regions_run_by(rank, regions);
  // This rank's region nodes, numbered 1.. in the order of the tree's ids (as a rank numbers
  // them in its order of first entry); local_id maps a tree id to this rank's.
  std::vector<uint64_t> nodes_run, local_id(regions + 1, 0);
  for (uint64_t n = 1; n <= regions; ++n) {
    if (!runs[n]) continue;
    nodes_run.push_back(nodes_run.size() + 1);
    local_id[n] = nodes_run.back();
    r.Clear();
    v1::RegionNode* node = r.mutable_region_node();
    node->set_id(local_id[n]);
    node->set_parent_id(local_id[region_parent(n)]);
    node->set_name(main_name + n);
    w.add(r);
  }
  // Thread 0 opens every region (calls and inclusive wall time; self = inclusive, so that
  // parents need not add up), a rank-dependent amount of it.
  for (uint64_t n = 1; n <= regions; ++n) {
    if (!runs[n]) continue;
    r.Clear();
    v1::RegionStats* rs = r.mutable_region_stats();
    rs->set_node_id(local_id[n]);
    rs->set_thread_index(0);
    rs->set_calls(int64_t(1 + n % 5));
    rs->set_wall_ns(int64_t(1000000 * (1 + n % 13) * uint64_t(1 + rank % 3)));
    rs->set_self_wall_ns(rs->wall_ns());
    w.add(r);
  }

  r.Clear();
  v1::Mapping* m = r.mutable_mapping();
  m->set_id(1);
  m->set_start(0x400000);
  m->set_limit(0x800000);
  m->set_filename(1);
  w.add(r);

  // Functions 1..kFunctions, then main.
  for (int f = 0; f <= kFunctions; ++f) {
    r.Clear();
    v1::Function* fn = r.mutable_function();
    fn->set_id(uint64_t(f) + 1);
    fn->set_name(f < kFunctions ? 2 + uint64_t(f) : main_name);
    fn->set_filename(2 + kFunctions + uint64_t(f % 50));
    w.add(r);
  }
  // Locations: kLinesPerFunction lines of each function; main's is the last.
  const uint64_t n_locations = uint64_t(kFunctions) * kLinesPerFunction + 1;
  for (uint64_t l = 0; l < n_locations; ++l) {
    r.Clear();
    v1::Location* loc = r.mutable_location();
    loc->set_id(l + 1);
    loc->set_mapping_id(1);
    loc->set_address(0x401000 + 16 * l);
    v1::Line* line = loc->add_line();
    line->set_function_id(l + 1 == n_locations ? kFunctions + 1 : l / kLinesPerFunction + 1);
    line->set_line(int64_t(10 + 7 * (l % kLinesPerFunction) + l % 97));
    w.add(r);
  }
  // Stacks: random walks down a call graph in which each function calls a few others, so that
  // call paths share prefixes as real ones do. Leaf first; main at the root.
  // SPMD codes run the same call paths on every rank: with `same_stacks`, each rank draws the
  // same stacks (its own generator, seeded alike); else each rank its own.
  std::mt19937_64 shared_rng(7);
  std::mt19937_64& stack_rng = same_stacks ? shared_rng : rng;
  std::uniform_int_distribution<int> depth_of(6, 40), callee(0, 7),
      line_of(0, kLinesPerFunction - 1);
  for (uint64_t s = 0; s < stacks; ++s) {
    r.Clear();
    v1::Stack* st2 = r.mutable_stack();
    st2->set_id(s + 1);
    std::vector<uint64_t> path{n_locations};  // main
    int f = int(stack_rng() % 16);
    const int depth = depth_of(stack_rng);
    for (int d = 0; d < depth; ++d) {
      path.push_back(uint64_t(f) * kLinesPerFunction + uint64_t(line_of(stack_rng)) + 1);
      f = (f * 31 + 7 * callee(stack_rng) + d) % kFunctions;
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) st2->add_location_id(*it);
    w.add(r);
  }
  // Samples: each thread draws stacks with a skew (a few hot paths, a long tail), in work or in
  // a barrier wait; aggregated per (stack, state) as the collector does.
  std::exponential_distribution<double> skew(6.0);
  for (int t = 0; t < threads; ++t) {
    std::map<std::tuple<uint64_t, uint32_t, uint64_t>, uint64_t> counts;  // stack, state, node
    const uint64_t n = samples / uint64_t(threads);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t stack = 1 + uint64_t(std::min(0.999999, skew(rng) / 3) * double(stacks));
      const uint32_t state = rng() % 4 == 0 ? omprof::format::kWaitBarrierImplicitParallel
                                            : omprof::format::kWorkParallel;
      const uint64_t node = nodes_run.empty() ? 0 : nodes_run[rng() % nodes_run.size()];
      ++counts[{std::min(stack, stacks), state, node}];
    }
    r.Clear();
    v1::ThreadProfile* tp = r.mutable_thread();
    tp->set_index(uint32_t(t));
    tp->set_tid(uint64_t(100000 + rank * 100 + t));
    tp->set_is_main(t == 0);
    tp->set_is_omp_thread(true);
    tp->set_cpu_time_ns(n * 1000000);
    tp->set_armed_clock_ns(n * 1000000);
    tp->set_periods_sampled(n);
    for (const auto& [key, count] : counts) {
      v1::Sample* smp = tp->add_sample();
      smp->set_stack_id(std::get<0>(key));
      smp->set_omp_state(std::get<1>(key));
      smp->set_region_node(std::get<2>(key));
      smp->set_count(count);
      smp->set_weight_ns(count * 1000000);
    }
    w.add(r);
  }
  r.Clear();
  r.mutable_trailer()->set_record_count(w.records());
  w.add(r);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: synthetic_profiles DIR [SAMPLES=1000000] [STACKS=100000] [RANKS=8] "
                 "[THREADS=16] [REGIONS=0] [same-stacks]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const uint64_t samples = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  const uint64_t stacks = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 100000;
  const int ranks = argc > 4 ? std::atoi(argv[4]) : 8;
  const int threads = argc > 5 ? std::atoi(argv[5]) : 16;
  const uint64_t regions = argc > 6 ? std::strtoull(argv[6], nullptr, 10) : 0;
  const bool same_stacks = argc > 7 && std::string(argv[7]) == "same-stacks";
  std::mt19937_64 rng(42);
  for (int rank = 0; rank < ranks; ++rank)
    write_rank(dir, rank, ranks, threads, samples / uint64_t(ranks), stacks / uint64_t(ranks),
               regions, same_stacks, rng);
  return 0;
}
