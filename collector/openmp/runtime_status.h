// Which OpenMP runtime the program runs on and what omprof can see of it: OMPT started omprof's
// tool (libomp), or omprof's wrappers of GNU libgomp's entry points are in place, or neither.
// Written to the journal when it changes, and into the profile's header.
#pragma once

#include <string>
#include <vector>

#include "omp/accounting.h"
#include "proto/wire.h"
#include "unwind/module.h"

namespace omprof::openmp {

struct RuntimeStatus {
  bool ompt_active = false;
  std::string runtime;         // file name of the OpenMP runtime loaded, "" if none
  std::string note;            // why attribution is unavailable, when it is
  bool off_cpu_waits = false;  // libgomp under omprof's wrappers (collector/libgomp/bridge.h)
  std::string version;         // what the runtime said of itself to OMPT ("" without OMPT)
};
RuntimeStatus runtime_status(const std::vector<unwind::Module>& modules);

// The runtime_version string the OpenMP runtime passed to ompt_start_tool.
void note_runtime_version(const char* version);
// OMPT initialized omprof's tool (ompt_tool.cc).
void note_ompt_started();
// Whether OMPT started omprof's tool in this process.
bool ompt_ever();
// The program runs on GNU libgomp with omprof's wrappers of its entry points preloaded.
void note_gomp_wrappers();
// How this run measures each state's time so far (written into the profile's header, used by
// the timeline and the in-job rank summary): what OMPT or the libgomp wrappers measure, once one
// of them started, and the sampling clock.
omp::Measurement run_measurement();
// Whether OMPT's taskwait and taskgroup waits are measured exactly (OMPROF_EXACT_TASKWAIT=1) or
// sampled (the default: proto Header.taskwait_sampled).
bool taskwait_exact();
// run_measurement as Header fields (state_measurement, wrapper_states, taskwait_sampled): in
// the profile's header, and in the journal's runtime status (journal_runtime_status).
void add_run_measurement(wire::Encoder& h);
// Tells the timeline which samples only repeat a measured wait (omp/accounting.h), from how this
// run measures its waits so far (at start, and again when OMPT or the libgomp wrappers start).
void apply_timeline_measurement();
// Records the runtime status in the journal (at start, and again once OMPT is initialized).
void journal_runtime_status(const std::vector<unwind::Module>& modules);

}  // namespace omprof::openmp
