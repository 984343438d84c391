// The fork records (ForkRecord in the profile): one per distinct call path of a parallel
// construct, or of a task construct's creation, so that worker samples and task samples can be
// shown under the call path that made their work. With them, what a fork does for omprof: the
// region's instance number, the records' counts (instances, team sizes, fork-to-join wall
// time). Fed by both runtimes' adapters, the OMPT callbacks (ompt_tool.cc) and the libgomp
// wrappers (collector/libgomp/), in the encountering thread; never in the signal handler.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace omprof::openmp {

// A fork, in the encountering thread: records the construct's call path (`enter_frame`: where
// the runtime was entered, the memo's key; fork_paths.cc) and returns the region's value
// (handler/parallel_value.h).
uint64_t begin_parallel_region(const void* codeptr_ra, const void* enter_frame);
// A deferred task is created at `codeptr_ra` in context `parent` (its creating task's record,
// else the innermost region's fork id): records its creation path from the frames called from
// `cut_frame` on (the frame of the runtime's or omprof's call of the creating task's code) and
// returns its record, 0 when not recorded (the OMPROF_TASK_PATHS=0 switch, the cost guard).
uint32_t record_task_creation(const void* codeptr_ra, const void* enter_frame, uint64_t parent,
                              uint64_t cut_frame);
// Whether deferred tasks' creation paths are recorded: on unless OMPROF_TASK_PATHS=0 (for cost
// comparisons in bench/). Read once, outside signal context; inline, as it is asked per task.
inline bool task_paths() {
  static const bool on = [] {
    const char* v = std::getenv("OMPROF_TASK_PATHS");
    return !(v && *v == '0');
  }();
  return on;
}
// The fork record of the innermost region the calling thread is in (0: none).
uint64_t enclosing_fork_id();
// A team member starts region `value` as thread `index` of `team_size`.
void begin_team_member(uint64_t value, unsigned index, unsigned team_size);
// Adds `wall_ns` of fork-to-join time to fork record `fork_id` (fork_walls.h).
void add_fork_wall(uint64_t fork_id, uint64_t wall_ns);
// Adds a team member's counter events (`n` of them) to fork record `fork_id` (member_counters.h).
void add_fork_counters(uint64_t fork_id, const uint64_t* counts, uint32_t n);
// Whether fork record `fork_id` is an outermost region's (no enclosing region); false if unknown.
bool is_outermost_fork(uint64_t fork_id);

struct ForkSnapshot {
  uint64_t id = 0;
  uint64_t parent_id = 0;
  std::vector<uint64_t> frames;  // encountering thread's stack at the fork, leaf first
  bool truncated = false;
  uint64_t codeptr = 0;  // the construct's return address - 1 (0 if unknown)
  uint64_t instances = 0;
  uint64_t wall_ns = 0;  // fork to join, summed over the instances
  std::vector<uint32_t> team_sizes;
  std::vector<uint64_t> counters;  // the members' counter events (member_counters.h)
  bool task = false;               // a task construct's creation path (record_task_creation)
};
std::vector<ForkSnapshot> fork_snapshots();
uint64_t fork_records_dropped();

}  // namespace omprof::openmp
