// The per-thread parts of a profile recovered from a journal (proto/journal_reader.cc): each
// thread block's samples, waits, intervals, events and facts, and its explicit-region
// statistics, read safely from the journal's bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "omprof.pb.h"
#include "proto/journal.h"
#include "proto/journal_file.h"
#include "proto/journal_tables.h"

namespace omprof::format {

// Thread blocks marked ready, as ThreadProfile messages. Threads still running when the
// process died end at `duration_ns`; their CPU time is the sampling clock at their last sample
// (within one period) when that clock is CPU time. `forks`, `nodes`: how many fork records and
// region nodes the profile has (references beyond are dropped); `counters`: the events counted.
std::vector<v1::ThreadProfile> read_threads(const Mapped& m, const journal::FileHeader& h,
                                            TableBuilder& b, uint64_t duration_ns, bool cpu_clock,
                                            uint64_t forks, uint64_t nodes, uint32_t counters);

// Every thread's explicit-region statistics (its closed instances; those of nodes the journal
// has), self times computed from the node tree as the collector computes them (inclusive minus
// the thread's children's). `counters`: the events each region counted exactly (0: not
// --region-counters).
std::vector<v1::RegionStats> read_region_stats(const Mapped& m, const journal::FileHeader& h,
                                               const std::vector<v1::RegionNode>& nodes,
                                               uint32_t counters);

}  // namespace omprof::format
