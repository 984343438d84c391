// `omprof advise RUN [RUN...]` (docs/semantics.md "Advice"): what to fix, ranked by the wall time
// it would save, each finding with where it is, the numbers it rests on (with their sampling
// error) and what to try. The gain models are written once here and documented with their
// assumptions; a finding whose gain is within two standard errors of zero is marked as not
// significant.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "viewer/scaling_run.h"

namespace omprof::viewer {

struct Finding {
  std::string kind;                  // e.g. "load_imbalance" (docs/format.md lists them)
  std::string where;                 // a parallel construct, a call path, "ranks 2,3"
  std::string place;                 // "file.c:42" where known
  double gain_ns = 0, error_ns = 0;  // wall time it would save, one standard error
  bool significant = true;
  std::string evidence;  // the numbers, in words
  nlohmann::json numbers = nlohmann::json::object();
  std::string advice;  // what to try
};

struct Advice {
  std::string input;
  int ranks = 1;
  uint32_t threads = 1;
  double elapsed_ns = 0;
  std::vector<Finding> findings;  // largest gain first
  std::string note;               // why there is nothing to say, when there is not
  // What the findings stand on that is not a finding: threads outnumbering the CPUs a rank
  // may use.
  std::vector<std::string> warnings;
};

// Advice on the last run of `runs` (the others, if any, are a scaling series it is compared
// with; the reference is the smallest). Findings under `min_fraction` of the run are left out.
Advice advise(const std::vector<ScalingRun>& runs, double min_fraction);
// The JSON of `omprof advise --json` (docs/format.md), also the HTML page's "advice".
nlohmann::json advice_json(const Advice& a);

}  // namespace omprof::viewer
