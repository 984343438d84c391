#include "ranks/summary_file.h"

#include "proto/fields.h"
#include "proto/format.h"
#include "proto/wire.h"

namespace omprof::ranks {

namespace {

wire::Encoder row(const std::string& path, const Partial& p) {
  namespace R = format::fields::SummaryRow;
  wire::Encoder e;
  e.str_nonempty(R::kPath, path);
  e.i64(R::kRanks, p.ranks);
  e.dbl(R::kInclMinNs, p.incl_min);
  e.i64(R::kInclMinRank, p.incl_min_rank);
  e.dbl(R::kInclMaxNs, p.incl_max);
  e.i64(R::kInclMaxRank, p.incl_max_rank);
  e.dbl(R::kInclSumNs, p.incl_sum);
  e.dbl(R::kCompMinNs, p.comp_min);
  e.i64(R::kCompMinRank, p.comp_min_rank);
  e.dbl(R::kCompMaxNs, p.comp_max);
  e.i64(R::kCompMaxRank, p.comp_max_rank);
  e.dbl(R::kCompSumNs, p.comp_sum);
  e.dbl(R::kSelfSumNs, p.self_sum);
  e.dbl(R::kOutsideMpiSumNs, p.outside_mpi_sum);
  e.dbl(R::kWorkSumNs, p.work_sum);
  e.dbl(R::kOmpWaitSumNs, p.omp_wait_sum);
  e.dbl(R::kMpiWaitSumNs, p.mpi_wait_sum);
  e.i64(R::kCallsMin, p.calls_min);
  e.i64(R::kCallsMax, p.calls_max);
  e.dbl(R::kCallsSum, p.calls_sum);
  e.dbl(R::kThreadsSum, p.threads_sum);
  e.dbl(R::kSamplesSum, p.samples_sum);
  e.dbl(R::kSetupSumNs, p.setup_sum);
  e.dbl(R::kSetupMaxNs, p.setup_max);
  return e;
}

}  // namespace

std::string encode_summary_file(const JobSummary& s, const std::string& program,
                                uint64_t reduction_ns) {
  namespace J = format::fields::JobSummary;
  wire::Encoder e;
  e.u64(J::kFormatMajor, format::kSummaryMajor);
  e.u64(J::kFormatMinor, format::kSummaryMinor);
  e.str(J::kCollectorVersion, OMPROF_VERSION);
  e.str_nonempty(J::kProgram, program);
  e.i64(J::kSize, s.size);
  e.str_nonempty(J::kScope, s.scope);
  e.message(J::kRun, row("", s.run));
  for (const auto& r : s.regions) e.message(J::kRegion, row(r.path, r.p));
  for (int64_t rank : s.differing_ranks) {
    e.tag(J::kDifferingRank, 0);
    e.varint(uint64_t(rank));
  }
  e.u64(J::kReductionNs, reduction_ns);
  wire::Encoder length;
  length.varint(e.size());
  return std::string(format::kSummaryMagic) + length.bytes() + e.bytes();
}

}  // namespace omprof::ranks
