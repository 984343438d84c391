#include "collector/openmp/runtime_status.h"

#include <atomic>
#include <climits>
#include <cstdlib>

#include "collector/handler/hot_flag.h"
#include "collector/handler/sample_measures.h"
#include "collector/journal_writer.h"
#include "collector/modules.h"
#include "collector/runtime.h"
#include "omp/accounting.h"
#include "proto/fields.h"
#include "proto/state_codes.h"
#include "proto/text.h"
#include "unwind/module_kind.h"

namespace omprof::openmp {

namespace {
handler::HotFlag g_ompt_ever;
std::atomic<bool> g_gomp_wrappers{false};  // note_gomp_wrappers

std::string& version_text() {
  static auto* v = new std::string;  // never destroyed: read at shutdown
  return *v;
}
}  // namespace

void note_runtime_version(const char* version) {
  if (version) version_text() = version;
}

bool taskwait_exact() {
  // Read once (first taskwait, outside signal context); the setting is for comparisons
  // (bench/), the default is sampled.
  static const bool exact = [] {
    const char* v = std::getenv("OMPROF_EXACT_TASKWAIT");
    return v && *v == '1';
  }();
  return exact;
}

omp::Measurement run_measurement() {
  omp::Measurement m = omp::sampled_measurement();
  if (g_ompt_ever.acquire())
    m = omp::ompt_measurement(taskwait_exact());
  else if (g_gomp_wrappers.load())
    m = omp::libgomp_measurement();
  m.cpu_clock = runtime().config.clock != ClockKind::kWall;
  return m;
}

void add_run_measurement(wire::Encoder& h) {
  namespace How = format::fields::StateMeasurement;
  const omp::Measurement m = run_measurement();
  for (const omp::MeasuredStates& r : m.states) {
    wire::Encoder e;
    e.u64(How::kFirstState, r.first);
    e.u64(How::kLastState, r.last);
    e.u64(How::kHow, r.how == omp::Measure::kExact ? 1 : r.how == omp::Measure::kOffCpu ? 2 : 0);
    h.message(format::fields::Header::kStateMeasurement, e);
  }
  h.boolean(format::fields::Header::kWrapperStates, m.wrapper_states);
  h.boolean(format::fields::Header::kTaskwaitSampled, !taskwait_exact());
}

void apply_timeline_measurement() {
  const omp::Measurement m = run_measurement();
  for (uint32_t state = 0; state < format::kMpiFirst; ++state) {
    const uint32_t accounted = omp::accounted_state(m, state, false);
    handler::set_repeats_measured(state, omp::repeats_measured_time(m, accounted, true));
    handler::set_takes_no_off_cpu(state, !omp::takes_off_cpu_time(m, accounted));
  }
  // What OMPT measures is wall time published while it runs (ompt/exact_waits.cc); libgomp's
  // waits' time off the CPU is known at their end.
  bool known_while_open = true;
  for (const omp::MeasuredStates& s : m.states) known_while_open &= s.how != omp::Measure::kOffCpu;
  handler::set_measured_known_while_open(known_while_open);
  // MPI calls are always measured by omprof's wrappers: a sample inside one repeats it. One
  // switch for every call (kMpiFirst itself is no call).
  handler::set_repeats_measured(format::kMpiFirst,
                                omp::repeats_measured_time(m, format::kMpiFirst + 1, true));
}

void note_ompt_started() {
  g_ompt_ever.set();
  apply_timeline_measurement();
}

bool ompt_ever() {
  return g_ompt_ever.relaxed();
}

void note_gomp_wrappers() {
  g_gomp_wrappers.store(true);
  apply_timeline_measurement();
  journal_runtime_status(recorded_modules());
}

RuntimeStatus runtime_status(const std::vector<unwind::Module>& modules) {
  RuntimeStatus s;
  s.ompt_active = g_ompt_ever.acquire();
  s.version = version_text();
  s.off_cpu_waits = !s.ompt_active && g_gomp_wrappers.load();
  for (const auto& m : modules) {
    if (unwind::is_omprof_module(m.path) || !unwind::is_omp_runtime_module(m.path)) continue;
    const std::string f = text::base_name(m.path);
    s.runtime = f;
    char resolved[4096];
    if (realpath(m.path.c_str(), resolved)) {
      std::string real = text::base_name(resolved);
      if (real != f) s.runtime += " -> " + real;
    }
    break;
  }
  if (!s.runtime.empty() && !s.ompt_active) {
    const bool gnu =
        s.runtime.rfind("libgomp", 0) == 0 && s.runtime.find("libomp") == std::string::npos;
    if (gnu && g_gomp_wrappers.load())
      s.note =
          "GNU libgomp has no OMPT: states and user-model stacks come from omprof's wrappers "
          "of its entry points; waits are sampled on the CPU and measured off it; taskloop "
          "tasks are not placed under their creation path";
    else
      s.note = gnu ? "GNU libgomp has no OMPT: OpenMP states and user-model stacks are unavailable"
                   : "the OpenMP runtime did not start omprof's OMPT tool (OMP_TOOL disabled, or "
                     "the program defines its own ompt_start_tool)";
  }
  return s;
}

void journal_runtime_status(const std::vector<unwind::Module>& modules) {
  namespace J = format::fields::JournalOmp;
  const RuntimeStatus st = runtime_status(modules);
  wire::Encoder e;
  e.str_nonempty(J::kOmpRuntime, st.runtime);
  e.boolean(J::kOmptActive, st.ompt_active);
  e.str_nonempty(J::kOmpNote, st.note);
  e.boolean(J::kExactWaits, st.ompt_active);
  e.boolean(J::kOffCpuWaits, st.off_cpu_waits);
  wire::Encoder measurement;
  add_run_measurement(measurement);
  e.message(J::kMeasurement, measurement);
  journal::append_entry(format::fields::JournalEntry::kOmp, e);
}

}  // namespace omprof::openmp
