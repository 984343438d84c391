// A profile's code locations as the frames the views read: inline frames expanded, names
// interned (omp/name.h), each location expanded once, each mapping classified once (runtime,
// omprof's own, system library). Views build every distinct stack from these.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "omp/task_constructs.h"
#include "omp/user_model.h"
#include "proto/profile_reader.h"

namespace omprof::viewer {

class ProfileFrames {
 public:
  explicit ProfileFrames(const format::Profile& p);
  // One location's frames, innermost (inlined) first.
  const omp::FrameStack& location(uint64_t id);
  // A stack's frames, leaf first.
  omp::FrameStack stack(uint64_t stack_id);
  const format::Profile& profile() const { return p_; }
  // Where a GCC build's parallel construct is, found from the body GCC outlined from it (the
  // function its samples ran, "main._omp_fn.0"): the pragma's file and line (the body's first
  // line) and the function it is written in ("main"). nullptr when the profile has no such
  // body for the fork record (clang builds, no samples in the region).
  struct ConstructBody {
    std::string function, file;
    int64_t line = 0;
  };
  const ConstructBody* construct_body(uint64_t fork_id);

 private:
  struct MappingKind {
    bool runtime = false, omprof = false, system = false;
    omp::Name module;  // "[libfoo.so]": names a frame without a symbol
  };
  const MappingKind& mapping(uint64_t id);
  const omp::Name& str(uint64_t id);
  omp::FrameStack expand(uint64_t id);

  const format::Profile& p_;
  std::vector<omp::FrameStack> locations_;
  std::vector<bool> expanded_;
  std::vector<MappingKind> mappings_;  // index id (0: no mapping)
  std::vector<omp::Name> strings_;
  std::vector<bool> interned_;
  void find_construct_bodies();
  bool bodies_found_ = false;
  std::unordered_map<uint64_t, ConstructBody> bodies_;  // by fork id
};

// The task constructs' lines of the whole profile (every stack's calls into task creation), so
// that each view classifies the code at them alike.
omp::TaskConstructLines task_construct_lines(ProfileFrames& frames);

}  // namespace omprof::viewer
