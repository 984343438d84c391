// Sample filters of `omprof report`, `diff`, `view` and `export`: which samples a view counts.
// A filtered view keeps the whole profile's total as its 100%, as pprof does, so that a kept
// function's share still says how much of the program it is.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "viewer/model.h"
#include "viewer/name_pattern.h"

namespace omprof::viewer {

struct FilterOptions {
  std::vector<uint32_t> threads;     // --thread: thread indexes (the threads view's "thread")
  std::vector<std::string> states;   // --state: work, wait, overhead, mpi, or a state's name
  std::vector<std::string> regions;  // --region: an explicit region's name or path
  std::string focus;                 // --focus REGEX: samples with a frame whose name matches
  std::string ignore;                // --ignore REGEX: samples without one
  bool empty() const {
    return threads.empty() && states.empty() && regions.empty() && focus.empty() && ignore.empty();
  }
  // "--thread 1 --focus 'solve'": the filter as the user gave it.
  std::string describe() const;
};

// A filter that cannot be applied: an invalid regular expression, an unknown state name.
struct FilterError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SampleFilter {
 public:
  explicit SampleFilter(const FilterOptions& opt);  // throws FilterError
  bool keeps(const format::Profile& p, const ViewSample& s) const;
  bool empty() const { return opt_.empty(); }
  const FilterOptions& options() const { return opt_; }

 private:
  bool state_matches(uint32_t state) const;
  bool region_matches(const format::Profile& p, uint64_t node) const;
  FilterOptions opt_;
  NamePattern focus_, ignore_;
};

// Drops the samples the filter does not keep; `kept_weight_ns` and `kept_samples` say what is
// left (the model's totals stay the whole profile's).
void apply_filter(Model& m, const SampleFilter& filter);

// Every state name --state accepts (besides work, wait, overhead and mpi).
std::vector<std::string> state_names();

}  // namespace omprof::viewer
