// How a profile measured its threads' time (Header.state_measurement, format 1.20; derived from
// the runtime's flags before), as the accounting rules (omp/accounting.h) take it.
#pragma once

#include "omp/accounting.h"
#include "omprof.pb.h"

namespace omprof::viewer {

omp::Measurement measurement_of(const v1::Header& h);

}  // namespace omprof::viewer
