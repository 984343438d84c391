// The in-job MPI summary (collector/mpi_bridge.h): every rank reduces its own numbers
// (writer/rank_snapshot.h), the union of region paths is merged up a binomial tree and
// broadcast, the per-path partials are reduced by MPI with the summary's own combine
// operation, and rank 0 writes the result. Messages carry region paths and fixed-size
// records only: the cost grows with log(ranks) x paths, never with samples.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "collector/mpi_bridge.h"
#include "collector/runtime.h"
#include "collector/writer/mpi_facts.h"
#include "collector/writer/rank_snapshot.h"
#include "collector/writer/summary_files.h"
#include "ranks/job_summary.h"
#include "regions/status.h"

namespace omprof {

namespace {

using Transport = omprof_mpi_transport;

struct Failed {
  std::string why;
};

void check(int rc, const char* step) {
  if (rc != 0) throw Failed{std::string("MPI error ") + std::to_string(rc) + " in " + step};
}

// A set of strings as bytes: each one's length (8 bytes) then its bytes.
std::string encode(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    const uint64_t n = s.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += s;
  }
  return out;
}

void decode_into(const std::string& bytes, std::set<std::string>& items) {
  size_t at = 0;
  while (at + sizeof(uint64_t) <= bytes.size()) {
    uint64_t n = 0;
    std::memcpy(&n, bytes.data() + at, sizeof n);
    at += sizeof n;
    if (n > bytes.size() - at) throw Failed{"a malformed message between ranks"};
    items.insert(bytes.substr(at, n));
    at += n;
  }
}

// What rank 0 received, for the benchmark (bench/mpi_summary.sh): log2(ranks) messages per
// tree, each at most the union's size.
writer::ReductionCost g_cost;

// Rank 0 ends with the union of every rank's items: in round k, ranks with bit k set send
// what they have gathered to rank - 2^k and stop.
void merge_to_root(const Transport& t, std::set<std::string>& items) {
  for (int step = 1; step < t.size; step <<= 1) {
    if (t.rank & step) {
      const std::string bytes = encode(items);
      check(t.send(t.rank - step, bytes.data(), bytes.size()), "sending region paths");
      return;
    }
    if (t.rank + step < t.size) {
      uint64_t n = 0;
      check(t.probe(t.rank + step, &n), "probing for region paths");
      std::string bytes(n, '\0');
      check(t.recv(t.rank + step, bytes.data(), n), "receiving region paths");
      ++g_cost.messages;
      g_cost.bytes += n;
      decode_into(bytes, items);
    }
  }
}

void broadcast(const Transport& t, std::set<std::string>& items) {
  std::string bytes = t.rank == 0 ? encode(items) : std::string();
  uint64_t n = bytes.size();
  check(t.bcast(&n, sizeof n), "broadcasting the union's size");
  bytes.resize(n);
  check(t.bcast(bytes.data(), n), "broadcasting the union");
  if (t.rank != 0) {
    items.clear();
    decode_into(bytes, items);
  }
}

void combine_partials(const void* in, void* inout, uint64_t count) {
  // MPI hands over byte buffers of the records: copy rather than assume alignment.
  for (uint64_t i = 0; i < count; ++i) {
    ranks::Partial a, b;
    std::memcpy(&a, static_cast<const char*>(in) + i * sizeof a, sizeof a);
    std::memcpy(&b, static_cast<char*>(inout) + i * sizeof b, sizeof b);
    ranks::combine(a, b);
    std::memcpy(static_cast<char*>(inout) + i * sizeof b, &b, sizeof b);
  }
}

// The summary over all ranks, on rank 0 (`out`); the other ranks return with `out` empty.
// Strict: if the ranks' region paths differ, every rank returns false before any numbers are
// reduced (the check is a tree of the disagreeing ranks, then one broadcast).
bool reduce_job(const Transport& t, const char* scope, bool strict, ranks::JobSummary& out) {
  g_cost = {};
  const uint64_t start = monotonic_ns();
  // As of the end of the POP window: MPI_Finalize's start, or now (omprof_write_mpi_summary).
  const uint64_t finalize = mpi_facts().finalize_start_ns;
  const ranks::RankNumbers mine =
      writer::rank_snapshot(t.rank, finalize ? finalize : start - runtime().start_mono_ns);
  g_cost.snapshot_ns = monotonic_ns() - start;

  std::set<std::string> paths;
  for (const auto& [path, r] : mine.regions) paths.insert(path);
  merge_to_root(t, paths);
  broadcast(t, paths);
  const std::vector<std::string> all(paths.begin(), paths.end());

  // Which ranks lack paths of the union (only those are sent), and whether any does.
  std::set<std::string> differing;
  if (mine.regions.size() != all.size()) differing.insert(std::to_string(t.rank));
  merge_to_root(t, differing);
  uint64_t any_differ = differing.size();
  check(t.bcast(&any_differ, sizeof any_differ), "broadcasting the strict check");
  if (strict && any_differ) return false;

  // Record 0: the whole run; then one per path of the union, empty where this rank has none.
  std::vector<ranks::Partial> local(all.size() + 1), reduced(all.size() + 1);
  local[0] = ranks::run_partial(mine);
  for (size_t i = 0; i < all.size(); ++i) {
    const auto it = mine.regions.find(all[i]);
    if (it != mine.regions.end()) local[i + 1] = ranks::region_partial(t.rank, it->second);
  }
  check(t.reduce(local.data(), reduced.data(), local.size(), sizeof(ranks::Partial),
                 combine_partials),
        "reducing the regions");
  if (t.rank != 0) return true;

  out.size = t.size;
  out.scope = scope;
  out.run = reduced[0];
  ranks::finish(out, all, std::vector<ranks::Partial>(reduced.begin() + 1, reduced.end()));
  for (const std::string& r : differing) out.differing_ranks.push_back(std::stoll(r));
  std::sort(out.differing_ranks.begin(), out.differing_ranks.end());
  g_cost.total_ns = monotonic_ns() - start;
  return true;
}

void summarize_at_finalize(const Transport& t) {
  ranks::JobSummary s;
  reduce_job(t, "to MPI_Finalize", false, s);
  if (t.rank == 0) writer::write_summary_files(s, g_cost);
}

// omprof_write_mpi_summary: rank 0 writes; every rank returns rank 0's status.
int write_summary_now(const Transport& t, const char* path, bool strict, bool csv) {
  ranks::JobSummary s;
  if (!reduce_job(t, "to omprof_write_mpi_summary", strict, s)) return regions::kMpiIncon;
  int32_t status = regions::kSuccess;
  if (t.rank == 0) {
    const bool to_stdout = !path || !*path || std::string(path) == "-";
    std::ofstream file;
    if (!to_stdout) file.open(path, std::ios::out | std::ios::trunc);
    std::ostream& out = to_stdout ? std::cout : file;
    if (csv)
      ranks::write_regions_csv(out, s);
    else
      ranks::write_text(out, s);
    out.flush();
    if (!out) status = regions::kIo;
  }
  check(t.bcast(&status, sizeof status), "broadcasting the status");
  return status;
}

}  // namespace

}  // namespace omprof

extern "C" __attribute__((visibility("default"))) void omprof_internal_mpi_summarize(
    const omprof_mpi_transport* t) {
  if (!omprof::runtime().active.load()) return;
  omprof::mpi_summary_attempted();
  try {
    omprof::summarize_at_finalize(*t);
  } catch (const omprof::Failed& f) {
    // Other ranks may have failed at another step; each says why it has no summary.
    if (t->rank == 0) omprof::writer::write_summary_missing(f.why);
  } catch (const std::exception& e) {
    if (t->rank == 0) omprof::writer::write_summary_missing(e.what());
  }
}

extern "C" __attribute__((visibility("default"))) void omprof_internal_mpi_summary_missing(
    const char* why) {
  if (!omprof::runtime().active.load()) return;
  omprof::mpi_summary_attempted();
  if (omprof::mpi_facts().rank != 0) return;  // every rank knows; rank 0 says it
  omprof::writer::write_summary_missing(why ? why : "unknown");
}

extern "C" __attribute__((visibility("default"))) int omprof_internal_mpi_write_summary(
    const omprof_mpi_transport* t, const char* path, int strict, int csv) {
  if (!omprof::runtime().active.load()) return omprof::regions::kNotInit;
  try {
    return omprof::write_summary_now(*t, path, strict != 0, csv != 0);
  } catch (const omprof::Failed& f) {
    std::fprintf(stderr, "omprof: omprof_write_mpi_summary: %s\n", f.why.c_str());
    return omprof::regions::kUnknown;
  }
}
