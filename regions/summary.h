// The region summary: per-thread snapshots merged into one tree of rows (preorder), with the
// per-thread statistics of each context. Used by the collector's on-demand summaries and by
// `omprof report --regions`, so both compute the same numbers.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "regions/thread_timer.h"

namespace omprof::regions {

struct ThreadSnapshot {
  uint32_t thread = 0;
  std::vector<NodeSnapshot> nodes;
};

struct SummaryRow {
  uint32_t node = 0;
  uint32_t parent = 0;
  int depth = 0;
  std::string name;         // raw (unescaped); node and parent ids identify the row
  int64_t calls = 0;        // all threads
  int threads = 0;          // threads that ran it
  int64_t wall_max_ns = 0;  // inclusive wall time: max, min, mean over those threads
  int64_t wall_min_ns = 0;
  double wall_avg_ns = 0;
  int64_t wall_sum_ns = 0;
  int64_t self_max_ns = 0;  // self wall time, max over threads (self computed per thread)
  double self_avg_ns = 0;
  int64_t cpu_sum_ns = 0;  // inclusive thread CPU time, summed over threads
  int64_t self_cpu_sum_ns = 0;
  bool active = false;  // open on some thread at the snapshot
  // (max - mean) / max over the participating threads: the share of the slowest thread's
  // time the average thread would have spent waiting for it. 0 for one thread.
  double imbalance() const {
    return wall_max_ns > 0 ? (wall_max_ns - wall_avg_ns) / wall_max_ns : 0;
  }
};

// `node_info` and `name_of` resolve the registry (or a profile's region table).
std::vector<SummaryRow> summarize(const std::vector<ThreadSnapshot>& threads,
                                  const std::function<NodeInfo(uint32_t)>& node_info,
                                  const std::function<std::string(int32_t)>& name_of);

struct SummaryHeader {
  uint64_t pid = 0;
  int64_t window_ns = 0;  // monitoring window: run start (or last reset) to the snapshot
  size_t threads = 0;
  bool cpu_measured = true;  // else CPU time is not shown (the regions measured wall time only)
};

// Text: escaped names, tree indentation. CSV: one row per context with its node id and its
// parent's (names alone cannot tell "a/b" from "a" nesting "b"), raw names quoted. CPU time
// not measured is "-" in text and an empty field in CSV, never a zero.
void write_text(std::ostream& out, const SummaryHeader& h, const std::vector<SummaryRow>& rows);
void write_csv(std::ostream& out, const SummaryHeader& h, const std::vector<SummaryRow>& rows);
// Writes the summary (`csv` or text) to `path`, or to standard output for null or "-".
// Returns false with `*why` (a sentence's end) when the path is empty or cannot be written.
bool write_summary_to(const char* path, bool csv, const SummaryHeader& h,
                      const std::vector<SummaryRow>& rows, std::string* why);

}  // namespace omprof::regions
