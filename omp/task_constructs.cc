#include "omp/task_constructs.h"

#include "omp/states.h"
#include "proto/state_codes.h"

namespace omprof::omp {

bool is_task_creation_entry(const std::string& name) {
  const std::string entry = without_plt(name);
  auto starts = [&](const char* p) { return entry.rfind(p, 0) == 0; };
  if (is_taskwait_entry(entry) || starts("__kmpc_omp_taskyield") || starts("GOMP_taskyield") ||
      starts("GOMP_taskgroup") || starts("GOMP_taskwait"))
    return false;
  return starts("__kmpc_omp_task") || starts("__kmpc_taskloop") || starts("GOMP_task");
}

void TaskConstructLines::add(CodeLine line) {
  if (line.file.empty() || line.line <= 0) return;
  lines_.insert(std::move(line));
}

void TaskConstructLines::add_call_sites(const FrameStack& raw) {
  for (size_t i = 0; i + 1 < raw.size(); ++i) {
    const Frame& callee = raw[i];
    const Frame& caller = raw[i + 1];
    if (!callee.runtime || caller.runtime || caller.system || caller.pseudo) continue;
    const std::string& entry = caller.callee.empty() ? callee.name.str() : caller.callee.str();
    if (is_task_creation_entry(entry)) add({caller.name.str(), caller.file.str(), caller.line});
  }
}

bool TaskConstructLines::at_construct(const FrameStack& raw) const {
  for (const Frame& f : raw) {
    if (f.system && !f.runtime) continue;
    if (f.runtime || f.pseudo) return false;
    // gcc's copy function of a task's firstprivate data, which libgomp calls when it creates
    // the task (clang copies them at the construct's line).
    if (f.name.str().find("._omp_cpyfn.") != std::string::npos) return true;
    return !lines_.empty() && contains({f.name.str(), f.file.str(), f.line});
  }
  return false;
}

uint32_t construct_code_state(uint32_t state, bool at_construct) {
  using namespace format;
  const bool work = state == kWorkSerial || state == kWorkParallel || state == kWorkReduction;
  return work && at_construct ? uint32_t(kOverheadTask) : state;
}

}  // namespace omprof::omp
