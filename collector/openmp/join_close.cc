#include "collector/openmp/join_close.h"

#include "collector/openmp/wait_split.h"

namespace omprof::openmp {

JoinParts split_join(uint64_t off_ns, uint64_t start_ns, uint64_t now_ns, const JoinFacts& facts) {
  JoinParts p;
  p.barrier_end_ns = now_ns;
  if (facts.region_ended && off_ns) {
    const AfterRegionEnd after =
        split_after_region_end(off_ns, facts.region_end_ns, now_ns, facts.next_fork_ns);
    p.woken_ns = after.woken_ns;
    p.idle_ns = after.idle_ns;
    off_ns = after.rest_ns;
  }
  if (facts.region_ended) p.barrier_end_ns = facts.region_end_ns;
  if (off_ns && facts.all_begun_known && p.barrier_end_ns > start_ns) {
    const JoinOverhead o = join_overhead(off_ns, start_ns, p.barrier_end_ns, facts.all_begun_ns,
                                         facts.body_ns, facts.all_ended_ns);
    p.overhead_ns = o.fork_ns + o.release_ns;
    p.release_ns = o.release_ns;
    off_ns -= p.overhead_ns;
  }
  p.waiting_ns = off_ns;
  return p;
}

}  // namespace omprof::openmp
