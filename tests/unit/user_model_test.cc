// Cut and splice rules on recorded-like stacks (leaf first).
#include "omp/user_model.h"

#include <gtest/gtest.h>

#include "omp/states.h"
#include "omp/task_constructs.h"
#include "proto/state_codes.h"

namespace omprof::omp {
namespace {

Frame user(const std::string& n, int line = 0) {
  return Frame{n, "app.c", line, false, false, false, "", false, ""};
}
Frame rt(const std::string& n) {
  return Frame{n, "", 0, true, false, false, "", false, ""};
}
Frame sys(const std::string& n) {
  return Frame{n, "", 0, false, true, false, "", false, ""};
}

std::vector<std::string> names(const FrameStack& s) {
  std::vector<std::string> out;
  for (const auto& f : s) out.push_back(f.name);
  return out;
}

struct Fixture {
  std::map<uint64_t, ForkInfo> forks;
  std::function<const ForkInfo*(uint64_t)> fork_of = [this](uint64_t id) -> const ForkInfo* {
    auto it = forks.find(id);
    return it == forks.end() ? nullptr : &it->second;
  };
  Fixture() {
    // Outer region forked in solve (main -> solve), as captured inside parallel_begin.
    forks[1].stack = {rt("omprof_cb"),          rt("__kmp_fork_call"),
                      rt("__kmpc_fork_call"),   user("solve", 12),
                      user("main", 30),         sys("__libc_start_call_main"),
                      sys("__libc_start_main"), sys("_start")};
    forks[1].construct = user("solve", 11);
    // Nested region forked in inner() called from the outer region's outlined body.
    forks[2].parent_id = 1;
    forks[2].stack = {rt("omprof_cb"),
                      rt("__kmpc_fork_call"),
                      user("inner", 5),
                      user(".omp_outlined."),
                      rt("__kmp_invoke_microtask"),
                      rt("__kmp_launch_thread"),
                      sys("start_thread"),
                      sys("clone3")};
    forks[2].construct = user("inner", 4);
  }
};

TEST(UserModel, RegionFramesAreNamedAfterTheConstructsFunction) {
  ForkInfo f;
  f.construct = {
      "CalcForce(Domain&, double*)", "/src/lulesh.cc", 782, false, false, false, "", false, ""};
  EXPECT_EQ(region_frame_name(f), "<CalcForce: omp parallel @ lulesh.cc:782>");
  f.construct = {"std::vector<int>::f(int) const", "a.cc", 3, false, false, false, "", false, ""};
  EXPECT_EQ(region_frame_name(f), "<std::vector<int>::f: omp parallel @ a.cc:3>");
  f.construct = {"", "", 0, false, false, false, "", false, ""};
  EXPECT_EQ(region_frame_name(f), "<omp parallel>");
  // Without a line table: where the code is, so that two constructs in main stay apart.
  f.construct = {"main", "", 0, false, false, false, "main+0x4d", false, ""};
  EXPECT_EQ(region_frame_name(f), "<main: omp parallel @ main+0x4d>");
}

TEST(UserModel, WorkerIsSplicedUnderTheConstruct) {
  Fixture fx;
  FrameStack worker = {user("kernel"),
                       user(".omp_outlined."),
                       rt("__kmp_invoke_microtask"),
                       rt("__kmp_launch_thread"),
                       sys("start_thread"),
                       sys("clone3")};
  EXPECT_EQ(
      names(build_stack(worker, 0x1, 1, View::kUser, fx.fork_of)),
      (std::vector<std::string>{"kernel", "<solve: omp parallel @ app.c:11>", "solve", "main"}));
  EXPECT_EQ(names(build_stack(worker, 0x1, 1, View::kExpert, fx.fork_of)),
            (std::vector<std::string>{"kernel", ".omp_outlined.",
                                      "<solve: omp parallel @ app.c:11>", "solve", "main"}));
  EXPECT_EQ(build_stack(worker, 0x1, 1, View::kMachine, fx.fork_of).size(), worker.size());
}

TEST(UserModel, MasterMergesWithWorkers) {
  Fixture fx;
  FrameStack master = {
      user("kernel"),        user(".omp_outlined."),        rt("__kmp_invoke_microtask"),
      rt("__kmp_fork_call"), rt("__kmpc_fork_call"),        user("solve", 12),
      user("main", 30),      sys("__libc_start_call_main"), sys("__libc_start_main"),
      sys("_start")};
  EXPECT_EQ(
      names(build_stack(master, 0x1, 1, View::kUser, fx.fork_of)),
      (std::vector<std::string>{"kernel", "<solve: omp parallel @ app.c:11>", "solve", "main"}));
}

TEST(UserModel, WaitingThreadsGetAStateLeaf) {
  Fixture fx;
  // Worker at a barrier inside the body, libc's sched_yield called from the runtime.
  FrameStack barrier = {sys("sched_yield"),           rt("__kmp_wait"),
                        rt("__kmpc_barrier"),         user(".omp_outlined."),
                        rt("__kmp_invoke_microtask"), sys("start_thread")};
  EXPECT_EQ(names(build_stack(barrier, 0x10, 1, View::kUser, fx.fork_of)),
            (std::vector<std::string>{"<omp:barrier>", "<solve: omp parallel @ app.c:11>", "solve",
                                      "main"}));
  // Master at the join barrier: its own frames below the fork are not spliced twice.
  FrameStack join = {
      rt("__kmp_join_barrier"), rt("__kmp_join_call"),    rt("__kmpc_fork_call"), user("solve", 12),
      user("main", 30),         sys("__libc_start_main"), sys("_start")};
  EXPECT_EQ(names(build_stack(join, 0x13, 1, View::kUser, fx.fork_of)),
            (std::vector<std::string>{"<omp:region-end-barrier>",
                                      "<solve: omp parallel @ app.c:11>", "solve", "main"}));
  // Worker at the join barrier after its body returned.
  FrameStack worker_join = {rt("__kmp_join_barrier"), rt("__kmp_launch_thread"),
                            sys("start_thread"), sys("clone3")};
  EXPECT_EQ(names(build_stack(worker_join, 0x13, 1, View::kUser, fx.fork_of)),
            (std::vector<std::string>{"<omp:region-end-barrier>",
                                      "<solve: omp parallel @ app.c:11>", "solve", "main"}));
  // Idle workers are at the root, under nothing.
  EXPECT_EQ(names(build_stack(worker_join, 0x1001, 0, View::kUser, fx.fork_of)),
            (std::vector<std::string>{"<omp:idle>"}));
}

// A thread sampled while the runtime starts it, outside every region, has no frame of the
// program: its time is named rather than left with an empty stack.
TEST(UserModel, AStackWithoutProgramFramesIsNamed) {
  Fixture fx;
  const FrameStack starting = {rt("__kmp_launch_thread"), sys("start_thread"), sys("clone3")};
  EXPECT_EQ(names(build_stack(starting, 0x1, 0, View::kUser, fx.fork_of)),
            std::vector<std::string>{"<omp runtime>"});
  const FrameStack bare = {sys("start_thread"), sys("clone3")};
  EXPECT_EQ(names(build_stack(bare, 0x1, 0, View::kUser, fx.fork_of)),
            std::vector<std::string>{"<thread start>"});
}

TEST(UserModel, NestedRegionsSpliceRecursively) {
  Fixture fx;
  FrameStack inner_worker = {user("leaf"),
                             user(".omp_outlined..1"),
                             rt("__kmp_invoke_microtask"),
                             rt("__kmp_launch_thread"),
                             sys("start_thread"),
                             sys("clone3")};
  EXPECT_EQ(names(build_stack(inner_worker, 0x1, 2, View::kUser, fx.fork_of)),
            (std::vector<std::string>{"leaf", "<inner: omp parallel @ app.c:4>", "inner",
                                      "<solve: omp parallel @ app.c:11>", "solve", "main"}));
}

TEST(UserModel, SerialCodeKeepsItsStackWithoutThreadRoots) {
  Fixture fx;
  FrameStack serial = {user("setup"), user("main"), sys("__libc_start_call_main"),
                       sys("__libc_start_main"), sys("_start")};
  EXPECT_EQ(names(build_stack(serial, 0x0, 0, View::kUser, fx.fork_of)),
            (std::vector<std::string>{"setup", "main"}));
  // A libc leaf called from user code stays (memcpy is the user's time).
  FrameStack libc_leaf = {sys("memcpy"), user("main"), sys("_start")};
  EXPECT_EQ(names(build_stack(libc_leaf, 0x0, 0, View::kUser, fx.fork_of)),
            (std::vector<std::string>{"memcpy", "main"}));
}

TEST(UserModel, OutlinedNamesOfBothCompilers) {
  EXPECT_TRUE(is_outlined_name(".omp_outlined."));
  EXPECT_TRUE(is_outlined_name(".omp_outlined._debug__"));
  EXPECT_TRUE(is_outlined_name(".omp_outlined..3"));
  EXPECT_TRUE(is_outlined_name("solve._omp_fn.0"));
  EXPECT_FALSE(is_outlined_name("solve"));
}

}  // namespace
}  // namespace omprof::omp

namespace omprof::omp {
namespace {

// Runtime code entered from the program in a work state is overhead, named after the entry
// point; the program's own code is work; a taskwait's spinning stays waiting.
TEST(ResolveState, RuntimeCodeIsOverheadNamedAfterItsEntryPoint) {
  using namespace omprof::format;
  auto in = [](const std::string& entry) {
    return FrameStack{rt("[libomp.so.5]"), rt(entry), user("fib"), user("main")};
  };
  EXPECT_EQ(resolve_state(in("__kmpc_omp_task_alloc"), kWorkParallel), kOverheadTask);
  EXPECT_EQ(resolve_state(in("GOMP_task"), kWorkParallel), kOverheadTask);
  EXPECT_EQ(resolve_state(in("__kmpc_fork_call"), kWorkSerial), kOverheadFork);
  EXPECT_EQ(resolve_state(in("__kmpc_dispatch_next_4"), kWorkParallel), kOverheadLoop);
  EXPECT_EQ(resolve_state(in("GOMP_loop_dynamic_next"), kWorkParallel), kOverheadLoop);
  EXPECT_EQ(resolve_state(in("__kmpc_reduce_nowait"), kWorkParallel), kOverheadReduction);
  EXPECT_EQ(resolve_state(in("[libomp.so.5]"), kWorkParallel), kOverheadRuntime);
  // sched_yield called by the runtime: still the runtime's.
  FrameStack yield = in("__kmpc_omp_task_alloc");
  yield.insert(yield.begin(), sys("sched_yield"));
  EXPECT_EQ(resolve_state(yield, kWorkParallel), kOverheadTask);
  // The program's own code, and a libc call it made, are work.
  EXPECT_EQ(resolve_state({user("fib"), user("main")}, kWorkParallel), kWorkParallel);
  EXPECT_EQ(resolve_state({sys("memcpy"), user("fib"), user("main")}, kWorkParallel),
            kWorkParallel);
  // In a taskwait that waits: spinning in it is waiting, creating tasks inside a task it runs
  // is overhead.
  EXPECT_EQ(resolve_state(in("__kmpc_omp_taskwait"), kInTaskwait), kWaitTaskwait);
  EXPECT_EQ(resolve_state(in("GOMP_taskwait"), kInTaskwait), kWaitTaskwait);
  EXPECT_EQ(resolve_state(in("__kmpc_omp_task_alloc"), kInTaskwait), kOverheadTask);
  // Elsewhere (a taskwait with nothing left to wait for, its entry and exit, another task's
  // taskwait run inside it) a taskwait's runtime code is task bookkeeping.
  EXPECT_EQ(resolve_state(in("__kmpc_omp_taskwait"), kWorkParallel), kOverheadTask);
  EXPECT_EQ(resolve_state(in("__kmpc_end_taskgroup"), kWorkParallel), kOverheadTask);
  // An entry point that tail-called an unnamed internal function: the call site names it.
  FrameStack tail = {rt("[libomp.so.5]"), rt("[libomp.so.5]"), user("fib"), user("main")};
  EXPECT_EQ(resolve_state(tail, kWorkParallel), kOverheadRuntime);
  tail[2].callee = "__kmpc_omp_task_begin_if0";
  EXPECT_EQ(resolve_state(tail, kWorkParallel), kOverheadTask);
  tail[2].callee = "__kmpc_omp_taskwait";
  EXPECT_EQ(resolve_state(tail, kInTaskwait), kWaitTaskwait);
  // Waits measured or classified by OMPT stay what they are.
  EXPECT_EQ(resolve_state(in("__kmpc_barrier"), kWaitBarrier), kWaitBarrier);
  EXPECT_TRUE(is_overhead(kOverheadTask) && is_wait(kOverheadTask));
  EXPECT_FALSE(is_overhead(kWaitTaskwait));
}

Frame omprof_frame(const std::string& n) {
  Frame f = rt(n);
  f.omprof = true;
  return f;
}

// omprof's OMPT callbacks run inside the runtime's entry points: their samples are that entry's
// overhead, not the program's work. omprof code the program called itself (region API, MPI
// wrappers) stays as it was sampled.
TEST(ResolveState, OmprofCallbacksAreTheirEntryPointsOverhead) {
  using namespace omprof::format;
  FrameStack callback = {omprof_frame("on_task_schedule"), rt("[libomp.so.5]"),
                         rt("__kmpc_omp_task_begin_if0"), user("fib"), user("main")};
  EXPECT_EQ(resolve_state(callback, kWorkParallel), kOverheadTask);
  FrameStack region_api = {omprof_frame("omprof_region_begin"), user("solve"), user("main")};
  EXPECT_EQ(resolve_state(region_api, kWorkSerial), kWorkSerial);
  // A worker's thread start, wrapped by omprof below the runtime, ends the runtime segment.
  FrameStack worker = {rt("[libomp.so.5]"), rt("__kmp_launch_worker"),
                       omprof_frame("omprof_thread_start"), sys("start_thread")};
  EXPECT_EQ(resolve_state(worker, kWorkParallel), kOverheadRuntime);
}

// A deferred task's code, run by any thread, is spliced under the path that created it: the
// creating task's stack from the runtime's call of its code (here an implicit task: the region
// body) to the construct, then the creating context (the region, and its prefix).
TEST(UserModel, TaskCodeSitsUnderItsCreationPath) {
  Fixture fx;
  // Created in produce(), called from the outer region's body (fork 1), at app.c:40.
  fx.forks[3].parent_id = 1;
  fx.forks[3].task = true;
  fx.forks[3].stack = {rt("omprof_cb"), rt("__kmpc_omp_task"), user("produce", 40),
                       user(".omp_outlined.", 12)};
  fx.forks[3].construct = user("produce", 40);
  // A child created by that task's code in consume(), at app.c:50.
  fx.forks[4].parent_id = 3;
  fx.forks[4].task = true;
  fx.forks[4].stack = {rt("omprof_cb"), rt("__kmpc_omp_task"), user("consume", 50),
                       user(".omp_task_entry.")};
  fx.forks[4].construct = user("consume", 50);
  EXPECT_EQ(task_frame_name(fx.forks[3]), "<produce: omp task @ app.c:40>");
  EXPECT_TRUE(is_task_frame_name("<produce: omp task @ app.c:40>"));
  EXPECT_FALSE(is_region_frame_name("<produce: omp task @ app.c:40>"));
  EXPECT_FALSE(is_task_frame_name("<solve: omp parallel @ app.c:11>"));
  // Run by a worker at the region's barrier.
  FrameStack worker = {user("consume"),
                       user(".omp_task_entry."),
                       rt("__kmp_invoke_task"),
                       rt("__kmp_execute_tasks"),
                       rt("__kmpc_barrier"),
                       user(".omp_outlined."),
                       rt("__kmp_invoke_microtask"),
                       rt("__kmp_launch_thread"),
                       sys("start_thread")};
  const std::vector<std::string> expected = {"consume", "<produce: omp task @ app.c:40>",
                                             "produce", "<solve: omp parallel @ app.c:11>",
                                             "solve",   "main"};
  EXPECT_EQ(names(build_stack(worker, 0x1, 3, View::kUser, fx.fork_of)), expected);
  // Run by the master in a taskwait inside produce: the same path.
  FrameStack master = {user("consume"),
                       user(".omp_task_entry."),
                       rt("__kmp_invoke_task"),
                       rt("__kmpc_omp_taskwait"),
                       user("produce", 41),
                       user(".omp_outlined."),
                       rt("__kmp_invoke_microtask"),
                       rt("__kmpc_fork_call"),
                       user("solve", 12),
                       user("main", 30)};
  EXPECT_EQ(names(build_stack(master, 0x1, 3, View::kUser, fx.fork_of)), expected);
  // The child, one task frame deeper.
  FrameStack child = {user("refine"),       user(".omp_task_entry."), rt("__kmp_invoke_task"),
                      rt("__kmpc_barrier"), user(".omp_outlined."),   rt("__kmp_invoke_microtask")};
  EXPECT_EQ(names(build_stack(child, 0x1, 4, View::kUser, fx.fork_of)),
            (std::vector<std::string>{"refine", "<consume: omp task @ app.c:50>", "consume",
                                      "<produce: omp task @ app.c:40>", "produce",
                                      "<solve: omp parallel @ app.c:11>", "solve", "main"}));
}

// A sample in the program's PLT stub of a runtime entry point has entered the runtime
// (unwind/plt.h names the stub, the viewer marks it a runtime frame): that entry's overhead.
TEST(ResolveState, RuntimePltStubIsItsEntryPointsOverhead) {
  using namespace omprof::format;
  EXPECT_TRUE(is_runtime_plt_stub("__kmpc_omp_task_alloc@plt"));
  EXPECT_TRUE(is_runtime_plt_stub("GOMP_parallel@plt"));
  EXPECT_FALSE(is_runtime_plt_stub("malloc@plt"));
  EXPECT_FALSE(is_runtime_plt_stub("__kmpc_omp_task_alloc"));
  Frame stub = user("__kmpc_omp_task_alloc@plt");
  stub.runtime = true;
  EXPECT_EQ(resolve_state({stub, user("fib", 11), user("main")}, kWorkParallel), kOverheadTask);
  stub.name = "__kmpc_omp_taskwait@plt";
  EXPECT_EQ(resolve_state({stub, user("fib", 15), user("main")}, kWorkParallel), kOverheadTask);
  EXPECT_EQ(resolve_state({stub, user("fib", 15), user("main")}, kInTaskwait), kWaitTaskwait);
}

// The program's code at a task construct's line (filling in the runtime's task descriptor) is
// task overhead; its other lines, and lines of profiles without line tables, stay work.
TEST(TaskConstructs, CodeAtATaskCreationCallSitesLineIsTaskOverhead) {
  using namespace omprof::format;
  TaskConstructLines lines;
  EXPECT_TRUE(is_task_creation_entry("__kmpc_omp_task_alloc"));
  EXPECT_TRUE(is_task_creation_entry("__kmpc_omp_task_begin_if0@plt"));
  EXPECT_TRUE(is_task_creation_entry("GOMP_task"));
  EXPECT_TRUE(is_task_creation_entry("__kmpc_taskloop"));
  EXPECT_FALSE(is_task_creation_entry("__kmpc_omp_taskwait"));
  EXPECT_FALSE(is_task_creation_entry("GOMP_taskwait"));
  EXPECT_FALSE(is_task_creation_entry("GOMP_taskgroup_start"));
  EXPECT_FALSE(is_task_creation_entry("__kmpc_omp_taskyield"));
  EXPECT_FALSE(is_task_creation_entry("__kmpc_fork_call"));
  // fib calls the task allocation at line 11 (through an unnamed runtime frame that its call
  // instruction names), and the fork at main's line 30.
  Frame caller = user("fib", 11);
  caller.callee = "__kmpc_omp_task_alloc";
  lines.add_call_sites({rt("[libomp.so.5]"), caller, user("main", 30)});
  lines.add_call_sites({rt("__kmpc_fork_call"), user("main", 30)});
  lines.add_call_sites({rt("__kmpc_omp_task_begin_if0"), user("nolines", 0)});
  EXPECT_TRUE(lines.at_construct({user("fib", 11), user("main", 30)}));
  EXPECT_TRUE(lines.at_construct({sys("memcpy"), user("fib", 11), user("main", 30)}));
  EXPECT_FALSE(lines.at_construct({user("fib", 12), user("main", 30)}));
  EXPECT_FALSE(lines.at_construct({user("main", 30)}));
  EXPECT_FALSE(lines.at_construct({user("nolines", 0)}));
  EXPECT_FALSE(lines.at_construct({rt("__kmpc_omp_task_alloc"), user("fib", 11)}));
  // gcc's copy function of a task's firstprivate data, called by libgomp (or omprof's wrapper).
  TaskConstructLines none;
  EXPECT_TRUE(none.at_construct({sys("memcpy"), user("add_cell._omp_cpyfn.1", 530), rt("copy_task"),
                                 rt("GOMP_task"), user("add_cell", 530)}));
  EXPECT_FALSE(none.at_construct({user("add_cell", 530)}));
  const FrameStack at = {user("fib", 11), user("main", 30)};
  EXPECT_EQ(resolve_state(at, kWorkParallel, false, &lines), kOverheadTask);
  EXPECT_EQ(resolve_state(at, kWorkSerial, false, &lines), kOverheadTask);
  EXPECT_EQ(resolve_state(at, kWorkParallel), kWorkParallel);
  EXPECT_EQ(resolve_state({user("fib", 12), user("main", 30)}, kWorkParallel, false, &lines),
            kWorkParallel);
  EXPECT_EQ(resolve_state(at, kWaitBarrier, false, &lines), kWaitBarrier);
}

}  // namespace
}  // namespace omprof::omp
