// `report --idle-blame`: the OpenMP workers' idle time blamed on the main thread's serial code
// that kept them idle (format 1.14, docs/semantics.md "Idleness blame"): per function of the
// user model, with the heaviest call path to it, so that "serial zran3 -> vranlc costs 0.70 s
// of idle workers" is one row.
#pragma once

#include <cstdint>

#include "viewer/model.h"
#include "viewer/table.h"

namespace omprof::viewer {

struct IdleTotals {
  uint64_t idle_ns = 0;    // the workers' idle time in the profile (<omp:idle>)
  uint64_t blamed_ns = 0;  // blamed on the main thread's samples
};
IdleTotals idle_totals(const Model& m);

// Columns: idle_s (inclusive), idle% (of the workers' idle time), self_idle_s, function, path
// (root first, " > "); by self_idle_s, then idle_s.
Table idle_blame_table(const Model& m, size_t top);

}  // namespace omprof::viewer
