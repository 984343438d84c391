// The run as a time series (docs/format.md "Timeline", docs/usage.md `omprof timeline`): every
// thread's time per interval, by class of thread state (proto/timeline.h), sampled or measured
// (exact waits, MPI calls), on one grid for all threads and ranks: the coarsest interval any
// thread has (a thread whose ring filled has doubled its interval), rank clocks aligned by their
// start times. The rest of a thread's time in an interval is `off_cpu`: no sample and no
// measured wait covered it (preempted, blocked or sleeping outside OpenMP and MPI waits).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "proto/journal.h"
#include "proto/profile_reader.h"
#include "viewer/model.h"

namespace omprof::viewer {

using ClassNs = std::array<double, journal::kTimelineClasses>;

// One thread's intervals as the profile holds them (before the common grid).
struct TimelineLane {
  int rank = 0;
  uint32_t thread = 0;  // the profile's thread index
  uint64_t tid = 0;
  bool is_main = false;
  // Its off-CPU time is work, as the profile's model counts it (omp/accounting.h
  // places_off_cpu_time: CPU-clock samples with measured waits).
  bool off_cpu_is_work = false;
  uint64_t start_unix_ns = 0;  // the run's start on this rank
  uint64_t thread_start_ns = 0, thread_end_ns = 0;
  uint64_t interval_ns = 0;
  struct Cell {
    ClassNs ns{};  // sampled and measured
    uint32_t samples = 0, measured_waits = 0;
    std::array<double, journal::kMaxCounters> counters{};  // the samples' counter events
    // Samples, or measured time: an interval inside a long wait that sleeps has neither
    // samples nor the wait's count (counted where it ended), only its time.
    bool holds_data() const {
      return samples || measured_waits ||
             std::any_of(ns.begin(), ns.end(), [](double x) { return x > 0; });
    }
    std::string parallel_region, region;  // the latest sample's
    // Its leads (format 1.19): samples picked at random in it, their user-model paths and how
    // many picks each is (Interval.lead_sample; those without a view sample are left out).
    struct Lead {
      StackRef stack;
      bool wait = false;
      uint32_t samples = 0;  // picks
      uint32_t node = 0;     // its node in a page's call tree (html_view.cc; 0: not placed)
    };
    std::vector<Lead> leads;
  };
  std::vector<Cell> cells;  // by the lane's own interval index
  // Its explicit region instances and MPI calls of `event_min_ns` or more, in the order they
  // ended: ns from its rank's start, from the grid's origin after finish_timeline.
  struct Event {
    uint64_t start_ns = 0, end_ns = 0;
    std::string kind;  // "region" or "mpi"
    std::string name;  // the region's path, or the MPI call
  };
  std::vector<Event> events;
  uint64_t event_min_ns = 0, events_dropped = 0;
  // What it was doing when a live journal was read (ThreadProfile.now_state, 1.19): inside an
  // MPI call or an OpenMP wait since `now_since_ns` (from its rank's start); 0: neither.
  uint32_t now_state = 0;
  uint64_t now_since_ns = 0;
};

struct Timeline {
  std::vector<TimelineLane> lanes;
  std::vector<std::string> counter_events;  // the first profile's (Header.counter_event)
  uint64_t interval_ns = 0;                 // the common grid's (set by finish_timeline)
  uint64_t origin_unix_ns = 0;              // the earliest rank's start
  size_t intervals = 0;                     // grid intervals from the origin to the last end
  std::vector<std::string> notes;  // profiles without a timeline (written before format 1.17)
};

// Adds a profile's threads (with `m` its user-model model, for construct names).
void add_to_timeline(Timeline& t, const format::Profile& p, const Model& m);
// Puts every lane on the common grid: afterwards lane.cells[i] is grid interval i.
void finish_timeline(Timeline& t);

// Per cell: the thread's wall time inside the interval (0 when it did not exist), and the part of
// it no sample and no measured wait covered (off the CPU outside waits, or between samples).
double present_ns(const Timeline& t, const TimelineLane& lane, size_t i);
double off_cpu_ns(const Timeline& t, const TimelineLane& lane, size_t i);
// Its work as the model counts it: the work class, and its off-CPU time where that is work.
double work_ns(const Timeline& t, const TimelineLane& lane, size_t i);

// The kinds of time a cell shows: the classes, then off_cpu.
constexpr size_t kOffCpuKind = journal::kTimelineClasses;
constexpr size_t kKinds = kOffCpuKind + 1;
const char* kind_name(size_t kind);
// The kind with the most time in a cell (`except_work`: among the others), ties to the first.
size_t largest_kind(const Timeline& t, const TimelineLane& lane, size_t i, bool except_work);

void write_timeline_text(std::ostream& out, const Timeline& t);
void write_timeline_csv(std::ostream& out, const Timeline& t);
nlohmann::json timeline_json(const Timeline& t);
// The HTML page's compact form: per thread a label, per interval the microseconds of each kind, and
// the parallel region as runs ([first interval, name] where it changes).
// With `page_node` (a page's call-tree node of each Lead::node), each interval's leads too.
nlohmann::json timeline_page_json(const Timeline& t,
                                  const std::vector<uint32_t>* page_node = nullptr);

}  // namespace omprof::viewer
