// Builds the stacks a reader sees from the raw samples (offline, no signal context):
//  machine: as sampled;
//  user:    as if the program had no OpenMP runtime: each team member's stack is cut at the
//           runtime, spliced under the call path of its parallel construct (recursively for
//           nested regions), outlined bodies replaced by one region frame, waits shown as a
//           state pseudo-frame leaf, idle workers under <omp:idle> at the root; a deferred
//           task's code, on whichever thread ran it, under the call path that created it and a
//           task frame (recursively for tasks created by tasks);
//  expert:  like user, keeping the compiler-outlined functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "omp/name.h"

namespace omprof::omp {

enum class View { kUser, kExpert, kMachine };
bool parse_view(const std::string& s, View& v);

struct Frame {
  Name name;
  Name file;
  int64_t line = 0;
  bool runtime = false;  // in the OpenMP runtime (or omprof itself)
  bool system = false;   // libc, libm, the loader, the vdso: takes its caller's side
  bool pseudo = false;   // synthesized by omprof
  // Without a line (code without debug information), where the code is: "main+0x1a3" (offset
  // in the function) or "app+0x4a1f" (in the module file). Set for constructs, so that two
  // constructs in one function stay apart.
  Name code_place;
  bool omprof = false;  // omprof's own code (its libraries count as runtime, never as overhead)
  // A call site into the runtime: the entry point its call instruction calls (Location.callee),
  // which names the runtime frame under it when that is an internal function it tail-called.
  Name callee;
};

// Leaf first, everywhere.
using FrameStack = std::vector<Frame>;

// A fork record: a parallel construct's, or (task) a task construct's creation path.
struct ForkInfo {
  uint64_t parent_id = 0;
  FrameStack stack;  // encountering thread's raw stack inside parallel_begin (task_create)
  Frame construct;   // source location of the construct (name = enclosing function)
  bool task = false;
  // The innermost program frames of `stack` that a GCC build's line table puts the runtime call
  // in although they are inlined after the construct: not on the construct's call path.
  size_t frames_inside_construct = 0;
};

bool is_outlined_name(const std::string& name);
// A system frame called from the runtime (sched_yield in a barrier) is runtime too.
FrameStack resolve_runtime_frames(FrameStack raw);
bool is_thread_root_name(const std::string& name);
// "<solve: omp parallel @ solve.c:42>": a parallel region's frame in the user view; without a
// line table "<solve: omp parallel @ solve+0x1a3>".
std::string region_frame_name(const ForkInfo& fork);
// "solve" from "solve(int, double)": the construct's function, short enough to read in a flat
// profile (the parameter list of a C++ name is dropped; templates keep their arguments).
std::string short_function_name(const std::string& name);
// Where a construct is: "solve.c:42", else its code_place (no line table), else "".
std::string construct_place(const Frame& construct);
bool is_region_frame_name(const std::string& name);
// "<producer: omp task @ tasks.c:18>": a task construct's frame in the user view.
std::string task_frame_name(const ForkInfo& task);
bool is_task_frame_name(const std::string& name);

// The recorded state, refined from the raw stack: a thread marked "in a taskwait" (kInTaskwait)
// whose leaf is runtime code is waiting (kWaitTaskwait); one running a task's code works
// (kWorkParallel).
// `tasks_in_waits`: a libgomp profile (Header.off_cpu_waits): a wait state whose leaf is the
// program's code runs a task (resolve_task_in_wait).
// `constructs`: the profile's task construct lines (task_constructs.h): work done there is task
// overhead.
class TaskConstructLines;
uint32_t resolve_state(const FrameStack& raw, uint32_t state, bool tasks_in_waits = false,
                       const TaskConstructLines* constructs = nullptr);

// `context_id`: the sample's task record if it ran a recorded task's code, else its innermost
// region's fork record (0: none). `fork_of(id)` returns nullptr for unknown ids.
FrameStack build_stack(const FrameStack& raw, uint32_t state, uint64_t context_id, View view,
                       const std::function<const ForkInfo*(uint64_t)>& fork_of);

}  // namespace omprof::omp
