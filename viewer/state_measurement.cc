#include "viewer/state_measurement.h"

namespace omprof::viewer {

namespace {

// A state range's measurement as the format says it; false for a value this reader does not
// know (a newer writer's): the range is left out, its states sampled.
bool measure_of(v1::StateMeasurement::How how, omp::Measure* out) {
  switch (how) {
    case v1::StateMeasurement::SAMPLED:
      *out = omp::Measure::kSampled;
      return true;
    case v1::StateMeasurement::EXACT:
      *out = omp::Measure::kExact;
      return true;
    case v1::StateMeasurement::OFF_CPU:
      *out = omp::Measure::kOffCpu;
      return true;
    default:
      return false;
  }
}

}  // namespace

omp::Measurement measurement_of(const v1::Header& h) {
  omp::Measurement m;
  if (h.state_measurement_size() > 0) {
    omp::Measure how;
    for (const v1::StateMeasurement& r : h.state_measurement())
      if (measure_of(r.how(), &how) && how != omp::Measure::kSampled)
        m.states.push_back({r.first_state(), r.last_state(), how});
    m.wrapper_states = h.wrapper_states();
  } else if (h.exact_waits()) {  // before 1.20: what the runtime that wrote it measured
    m = omp::ompt_measurement(!h.taskwait_sampled());
  } else if (h.off_cpu_waits()) {
    m = omp::libgomp_measurement(false);
  }
  m.cpu_clock = h.clock() != v1::CLOCK_WALL;
  return m;
}

}  // namespace omprof::viewer
