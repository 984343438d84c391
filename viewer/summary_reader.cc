#include "viewer/summary_reader.h"

#include <google/protobuf/stubs/logging.h>

#include <fstream>
#include <sstream>

#include "proto/format.h"
#include "proto/profile_reader.h"

namespace omprof::viewer {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw format::ProfileError(path + ": " + what);
}

ranks::Partial partial_of(const v1::SummaryRow& r) {
  ranks::Partial p;
  p.ranks = r.ranks();
  p.incl_min = r.incl_min_ns();
  p.incl_min_rank = r.incl_min_rank();
  p.incl_max = r.incl_max_ns();
  p.incl_max_rank = r.incl_max_rank();
  p.incl_sum = r.incl_sum_ns();
  p.comp_min = r.comp_min_ns();
  p.comp_min_rank = r.comp_min_rank();
  p.comp_max = r.comp_max_ns();
  p.comp_max_rank = r.comp_max_rank();
  p.comp_sum = r.comp_sum_ns();
  p.self_sum = r.self_sum_ns();
  p.outside_mpi_sum = r.outside_mpi_sum_ns();
  p.work_sum = r.work_sum_ns();
  p.omp_wait_sum = r.omp_wait_sum_ns();
  p.mpi_wait_sum = r.mpi_wait_sum_ns();
  p.calls_min = r.calls_min();
  p.calls_max = r.calls_max();
  p.calls_sum = r.calls_sum();
  p.threads_sum = r.threads_sum();
  p.samples_sum = r.samples_sum();
  p.setup_sum = r.setup_sum_ns();
  p.setup_max = r.setup_max_ns();
  return p;
}

}  // namespace

bool is_summary_path(const std::string& path) {
  const std::string ext = ".ompsum";
  return path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
}

ranks::JobSummary read_summary_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open");
  std::ostringstream all;
  all << in.rdbuf();
  const std::string bytes = all.str();
  if (bytes.empty()) fail(path, "empty file, not an omprof summary");
  if (bytes.compare(0, format::kSummaryMagic.size(), format::kSummaryMagic) != 0)
    fail(path, "not an omprof MPI summary (bad magic)");
  // The varint length of the one message, then exactly that many bytes.
  size_t at = format::kSummaryMagic.size();
  uint64_t length = 0;
  int shift = 0;
  for (;; shift += 7) {
    if (at >= bytes.size() || shift > 63) fail(path, "truncated summary (no message length)");
    const auto b = uint8_t(bytes[at++]);
    length |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  if (length > bytes.size() - at) fail(path, "truncated summary (the message is cut short)");
  if (length < bytes.size() - at) fail(path, "corrupt summary (bytes after the message)");
  v1::JobSummary m;
  const google::protobuf::LogSilencer quiet;  // corrupt strings: our error, not its log
  if (!m.ParseFromArray(bytes.data() + at, int(length)))
    fail(path, "corrupt summary (does not parse)");
  if (m.format_major() > format::kSummaryMajor)
    fail(path, "written by a newer omprof (summary format " + std::to_string(m.format_major()) +
                   ", this reader supports " + std::to_string(format::kSummaryMajor) + ")");
  ranks::JobSummary s;
  s.size = m.size();
  s.scope = m.scope();
  s.run = partial_of(m.run());
  std::vector<std::string> paths;
  std::vector<ranks::Partial> partials;
  for (const auto& r : m.region()) {
    paths.push_back(r.path());
    partials.push_back(partial_of(r));
  }
  ranks::finish(s, paths, partials);
  s.differing_ranks.assign(m.differing_rank().begin(), m.differing_rank().end());
  return s;
}

}  // namespace omprof::viewer
