// `omprof export`: profiles in other tools' formats. Inputs are read one at a time (several
// ranks or runs merge into one output), each through the viewer's model in the chosen view.
//   pprof       gzip'd profile.proto for `go tool pprof` (export_pprof.cc)
//   folded      "root;...;leaf value" lines for flamegraph.pl and speedscope (export_folded.cc)
//   speedscope  speedscope's JSON file format, one profile per rank and thread
//               (export_speedscope.cc)
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "viewer/model.h"

namespace omprof::viewer {

enum class ExportFormat { kPprof, kFolded, kSpeedscope, kPerfetto, kSpeedscopeTimeline };
bool parse_export_format(const std::string& s, ExportFormat& f);

struct ExportOptions {
  ExportFormat format = ExportFormat::kPprof;
  omp::View view = omp::View::kUser;
  // folded and speedscope: the thread's OpenMP state as an extra leaf frame ("[wait_barrier]"),
  // so that a flame graph can be coloured or searched by state.
  bool state_leaf = false;
};

// What one sample is, besides its stack: where it ran and in which state and region.
struct SampleLabels {
  int64_t rank = -1;  // -1: not an MPI rank
  uint32_t thread = 0;
  uint64_t tid = 0;
  std::string state;   // omp::describe_state(...).name, e.g. "wait_barrier"
  std::string region;  // explicit region path "outer/inner", "" outside every region
};

class Exporter {
 public:
  virtual ~Exporter() = default;
  // One profile's samples (its model in the chosen view).
  virtual void add(const format::Profile& p, const Model& m) = 0;
  // Writes everything added so far.
  virtual void write(std::ostream& out) = 0;
};

std::unique_ptr<Exporter> make_exporter(const ExportOptions& opt);

// Shared by the exporters.
SampleLabels labels_of(const format::Profile& p, const ViewSample& s);
// "outer/inner" for an explicit region node (p.region_nodes[id - 1]), "" for none: every view's
// name of a region path.
std::string region_path(const format::Profile& p, uint64_t node);
// A frame's name as a flame graph shows it: the function, or "[state]" for the state leaf.
std::string state_leaf_name(const SampleLabels& l);

std::unique_ptr<Exporter> make_pprof_exporter();
std::unique_ptr<Exporter> make_folded_exporter(bool state_leaf);
std::unique_ptr<Exporter> make_speedscope_exporter(bool state_leaf);
std::unique_ptr<Exporter> make_perfetto_exporter();             // the timeline (viewer/timeline.h)
std::unique_ptr<Exporter> make_speedscope_timeline_exporter();  // the same, speedscope "evented"

}  // namespace omprof::viewer
