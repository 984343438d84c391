// How sure a sampled number is (docs/semantics.md, "How sure"). A time estimated from k
// samples of weights w_i has a standard error of sqrt(sum w_i^2) (each sample stands for its
// weight with Poisson-like uncertainty; stratified sampling does at least as well); measured
// parts (exact waits, off-CPU time) add none. A share a/(a+b) of two such estimates has the
// propagated error, which for two sampled states is the binomial sqrt(p(1-p)/n).
#pragma once

#include <cmath>
#include <cstdint>

#include "viewer/model.h"

namespace omprof::viewer {

struct Estimate {
  uint64_t ns = 0;       // the time: measured and sampled parts
  double var_ns2 = 0;    // variance of its sampled part
  uint64_t samples = 0;  // samples behind the sampled part

  void add(const ViewSample& s) {
    ns += s.weight_ns;
    if (s.exact || s.count == 0) return;
    // `count` samples of about weight_ns / count each.
    var_ns2 += double(s.weight_ns) * double(s.weight_ns) / double(s.count);
    samples += s.count;
  }
  double error_ns() const { return std::sqrt(var_ns2); }
};

// Standard error of a / (a + b), a and b estimated independently; 0 if both are empty.
inline double share_error(const Estimate& a, const Estimate& b) {
  const double sa = double(a.ns), sb = double(b.ns), sum = sa + sb;
  if (sum <= 0) return 0;
  return std::sqrt(sb * sb * a.var_ns2 + sa * sa * b.var_ns2) / (sum * sum);
}

// Below this many samples, a share is too rough to act on; views mark such rows.
constexpr uint64_t kFewSamples = 20;

}  // namespace omprof::viewer
