// omprof as an OMPT tool, in the profiled process (OMPT callbacks, never the signal handler):
// registration with the OpenMP runtime, the callbacks it needs (thread begin, parallel
// begin/end, implicit tasks, sync regions, mutexes, task switches), and the fork records that
// let worker samples be shown under the call path of their parallel construct. What the
// handler asks of OMPT is in handler/omp_inquiry.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "unwind/module.h"

namespace omprof::ompt {

struct RuntimeStatus {
  bool ompt_active = false;
  std::string runtime;         // file name of the OpenMP runtime loaded, "" if none
  std::string note;            // why attribution is unavailable, when it is
  bool off_cpu_waits = false;  // libgomp under omprof's wrappers (collector/gomp_bridge.h)
  std::string version;         // what the runtime said of itself to OMPT ("" without OMPT)
};
RuntimeStatus runtime_status(const std::vector<unwind::Module>& modules);

// What a fork does for omprof, shared by the OMPT callbacks and the libgomp wrappers
// (collector/gomp_bridge.h), in the encountering thread: records the construct's call path
// (`enter_frame`: where the runtime was entered, the memo's key) and returns the region's
// value (handler/parallel_value.h).
uint64_t begin_parallel_region(const void* codeptr_ra, const void* enter_frame);
// A deferred task is created at `codeptr_ra` in context `parent` (its creating task's record,
// else the innermost region's fork id): records its creation path from the frames called from
// `cut_frame` on (the frame of the runtime's or omprof's call of the creating task's code) and
// returns its record, 0 when not recorded (the OMPROF_TASK_PATHS=0 switch, the cost guard).
uint32_t record_task_creation(const void* codeptr_ra, const void* enter_frame, uint64_t parent,
                              uint64_t cut_frame);
// A team member starts region `value` as thread `index` of `team_size`.
void begin_team_member(uint64_t value, unsigned index, unsigned team_size);
// Adds `wall_ns` of fork-to-join time to fork record `fork_id` (fork_walls.h).
void add_fork_wall(uint64_t fork_id, uint64_t wall_ns);
// The runtime_version string the OpenMP runtime passed to ompt_start_tool.
void note_runtime_version(const char* version);
// Whether OMPT started omprof's tool in this process.
bool ompt_ever();
// The program runs on GNU libgomp with omprof's wrappers of its entry points preloaded.
void note_gomp_wrappers();
// Records the runtime status in the journal (at start, and again once OMPT is initialized).
void journal_runtime_status(const std::vector<unwind::Module>& modules);

struct ForkSnapshot {
  uint64_t id = 0;
  uint64_t parent_id = 0;
  std::vector<uint64_t> frames;  // encountering thread's stack at the fork, leaf first
  bool truncated = false;
  uint64_t codeptr = 0;  // the construct's return address - 1 (0 if unknown)
  uint64_t instances = 0;
  uint64_t wall_ns = 0;  // fork to join, summed over the instances
  std::vector<uint32_t> team_sizes;
  bool task = false;  // a task construct's creation path (ompt_tool.cc, record_task_origin)
};
std::vector<ForkSnapshot> fork_snapshots();
uint64_t fork_records_dropped();

}  // namespace omprof::ompt
