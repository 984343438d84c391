// The viewer's model of a profile: every aggregated sample with its thread, state, region and
// its stack in the chosen view (user, expert, machine). Views and exports work on this, not on
// the raw protobuf messages.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "omp/user_model.h"
#include "proto/profile_reader.h"

namespace omprof::viewer {

struct ViewSample {
  uint32_t thread = 0;
  uint64_t count = 0;
  uint64_t weight_ns = 0;
  uint32_t state = 0;
  uint64_t fork_id = 0;
  uint32_t omp_thread_num = 0;
  uint64_t region_node = 0;  // explicit region (0: outside every region)
  bool truncated = false;
  bool exact = false;     // measured (exact wait, off-CPU time), not sampled; count is 0
  omp::FrameStack stack;  // leaf first
};

struct Model {
  const format::Profile* profile = nullptr;
  omp::View view = omp::View::kUser;
  std::vector<ViewSample> samples;
  std::unordered_map<uint64_t, omp::ForkInfo> forks;
  uint64_t total_weight_ns = 0;
  uint64_t total_samples = 0;
  // After a filter (viewer/filter.h): what the kept samples weigh. The totals above stay the
  // whole profile's.
  bool filtered = false;
  uint64_t kept_weight_ns = 0, kept_samples = 0;
};

Model build_model(const format::Profile& profile, omp::View view);

// Raw frames of one stack (inline frames expanded), leaf first.
omp::FrameStack expand_stack(const format::Profile& p, uint64_t stack_id);

// Where a sample inside MPI call `state` left the program: the frame that called omprof's
// wrapper (found by the call's name; else the frame above the first runtime frame from the
// leaf of its raw stack), or nullptr.
const omp::Frame* mpi_caller(const omp::FrameStack& raw, uint32_t state);

// "name (file:line)" location of a fork record's construct.
omp::Frame construct_frame(const format::Profile& p, const v1::ForkRecord& f);

}  // namespace omprof::viewer
