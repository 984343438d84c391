// The viewer's model of a profile: every aggregated sample with its thread, state, region and
// its stack in the chosen view (user, expert, machine). Views and exports work on this, not on
// the raw protobuf messages.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "omp/accounting.h"
#include "omp/user_model.h"
#include "proto/counter_events.h"
#include "proto/profile_reader.h"
#include "viewer/frames.h"

namespace omprof::viewer {

// A sample's stack in the view, leaf first: built once for every distinct (stack, state, parallel
// region) and shared by the samples that have it (a profile has far fewer of those than
// samples: every thread of a team repeats its colleagues' stacks). Immutable once built.
class StackRef {
 public:
  StackRef() : frames_(no_frames()) {}
  StackRef(omp::FrameStack frames)  // NOLINT(google-explicit-constructor): a stack is one
      : frames_(std::make_shared<const omp::FrameStack>(std::move(frames))) {}
  explicit StackRef(std::shared_ptr<const omp::FrameStack> frames) : frames_(std::move(frames)) {}
  const omp::FrameStack& frames() const { return *frames_; }
  operator const omp::FrameStack&() const { return *frames_; }  // NOLINT: reads as the stack
  size_t size() const { return frames_->size(); }
  bool empty() const { return frames_->empty(); }
  const omp::Frame& operator[](size_t i) const { return (*frames_)[i]; }
  const omp::Frame& front() const { return frames_->front(); }
  const omp::Frame& back() const { return frames_->back(); }
  omp::FrameStack::const_iterator begin() const { return frames_->begin(); }
  omp::FrameStack::const_iterator end() const { return frames_->end(); }
  omp::FrameStack::const_reverse_iterator rbegin() const { return frames_->rbegin(); }
  omp::FrameStack::const_reverse_iterator rend() const { return frames_->rend(); }
  // The same frames for every sample that shares them: per-stack work can be done once.
  const void* identity() const { return frames_.get(); }

 private:
  static const std::shared_ptr<const omp::FrameStack>& no_frames() {
    static const auto none = std::make_shared<const omp::FrameStack>();
    return none;
  }
  std::shared_ptr<const omp::FrameStack> frames_;
};

struct ViewSample {
  uint32_t thread = 0;
  uint64_t count = 0;
  uint64_t weight_ns = 0;
  uint32_t state = 0;
  uint64_t fork_id = 0;
  uint64_t task_origin = 0;  // the task record the sample's code was created by (0: none)
  uint32_t omp_thread_num = 0;
  uint64_t region_node = 0;  // explicit region (0: outside every region)
  bool truncated = false;
  bool exact = false;  // measured (exact wait, off-CPU time), not sampled; count is 0
  // In omprof's own code (its innermost frame outside the system libraries is omprof's: a
  // wrapper of the runtime, an OMPT callback): what profiling added to the program's time.
  bool in_collector = false;
  // The OpenMP workers' idle time blamed on this sample (the main thread's serial code; format
  // 1.14, collector/handler/idle_workers.h). Not part of weight_ns.
  uint64_t idle_blame_ns = 0;
  // The thread's time off the CPU its samples saw (format 1.22, Sample.off_cpu_seen_ns): where
  // the thread's off-CPU time is spread (omp/accounting.h). Not part of weight_ns.
  uint64_t off_cpu_seen_ns = 0;
  // Counter events (Header.counter_event) since the thread's previous sample (format 1.16). A
  // sample whose time an exact wait replaced keeps its counts, with no time (count 0).
  std::array<uint64_t, counters::kMaxCounters> counters{};
  StackRef stack;  // leaf first
};

struct Model {
  const format::Profile* profile = nullptr;
  omp::View view = omp::View::kUser;
  std::vector<ViewSample> samples;
  std::unordered_map<uint64_t, omp::ForkInfo> forks;
  uint64_t total_weight_ns = 0;
  uint64_t total_samples = 0;
  // Samples of waits that were also timed exactly: the exact times replace them, so they are
  // not in total_samples (omprof run's count has them).
  uint64_t replaced_samples = 0;
  // After a filter (viewer/filter.h): what the kept samples weigh. The totals above stay the
  // whole profile's.
  bool filtered = false;
  uint64_t kept_weight_ns = 0, kept_samples = 0;
  // Samples whose time exact waits replaced (a wait seen spinning), with their view stacks and
  // no time: not in `samples`, only what the timeline's leads are (timeline.h).
  std::vector<ViewSample> replaced;
  // Each thread's samples (by their index in its ThreadProfile.sample list) as indexes in
  // `samples`, or in `replaced` with kReplacedView set; kNoView for a sample that has no view
  // sample (an MPI call's, filtered out): what the timeline's leads are (timeline.h).
  std::unordered_map<uint32_t, std::vector<uint32_t>> sample_views;
  const ViewSample* view_of(uint32_t thread, uint32_t sample) const;
};
constexpr uint32_t kNoView = ~uint32_t(0);
constexpr uint32_t kReplacedView = uint32_t(1) << 31;

Model build_model(const format::Profile& profile, omp::View view);

// The model's samples merged per distinct view stack: what the call-path views need (time per
// path, split into work and wait), in a fraction of the samples' number. In first-seen order.
struct StackTotal {
  StackRef stack;
  uint64_t work_ns = 0, wait_ns = 0;
  uint64_t samples = 0;        // sampled (not measured) samples behind the time
  double var_ns2 = 0;          // variance of the sampled part (viewer/sampling_error.h)
  uint64_t idle_blame_ns = 0;  // idle workers' time blamed on the path (ViewSample)
  std::array<uint64_t, counters::kMaxCounters> counters{};  // counter events on the path
  uint64_t ns() const { return work_ns + wait_ns; }
};
std::vector<StackTotal> stack_totals(const Model& m);

// Where a sample inside MPI call `state` left the program: the frame that called omprof's
// wrapper (found by the call's name; else the frame above the first runtime frame from the
// leaf of its raw stack), or nullptr.
const omp::Frame* mpi_caller(const omp::FrameStack& raw, uint32_t state);

// "name (file:line)" location of a fork record's construct.
omp::Frame construct_frame(ProfileFrames& frames, const v1::ForkRecord& f);

}  // namespace omprof::viewer
