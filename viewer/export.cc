#include "viewer/export.h"

#include "omp/states.h"

namespace omprof::viewer {

bool parse_export_format(const std::string& s, ExportFormat& f) {
  if (s == "pprof")
    f = ExportFormat::kPprof;
  else if (s == "folded")
    f = ExportFormat::kFolded;
  else if (s == "speedscope")
    f = ExportFormat::kSpeedscope;
  else if (s == "perfetto")
    f = ExportFormat::kPerfetto;
  else if (s == "speedscope-timeline")
    f = ExportFormat::kSpeedscopeTimeline;
  else
    return false;
  return true;
}

std::unique_ptr<Exporter> make_exporter(const ExportOptions& opt) {
  switch (opt.format) {
    case ExportFormat::kFolded:
      return make_folded_exporter(opt.state_leaf);
    case ExportFormat::kSpeedscope:
      return make_speedscope_exporter(opt.state_leaf);
    case ExportFormat::kPerfetto:
      return make_perfetto_exporter();
    case ExportFormat::kSpeedscopeTimeline:
      return make_speedscope_timeline_exporter();
    case ExportFormat::kPprof:
      break;
  }
  return make_pprof_exporter();
}

std::string region_path(const format::Profile& p, uint64_t node) {
  std::string path;
  // Parents have smaller ids than their children; the bound stops a corrupt cycle.
  for (size_t hops = 0; node >= 1 && node <= p.region_nodes.size() && hops < 256; ++hops) {
    const v1::RegionNode& n = p.region_nodes[node - 1];
    const std::string& name = p.str(n.name());
    path = path.empty() ? name : name + "/" + path;
    node = n.parent_id();
  }
  return path;
}

SampleLabels labels_of(const format::Profile& p, const ViewSample& s) {
  SampleLabels l;
  l.rank = p.header.mpi_rank();
  l.thread = s.thread;
  const auto it = p.threads.find(s.thread);
  if (it != p.threads.end()) l.tid = it->second.tid();
  l.state = omp::describe_state(s.state).name;
  l.region = region_path(p, s.region_node);
  return l;
}

std::string state_leaf_name(const SampleLabels& l) {
  return "[" + l.state + "]";
}

}  // namespace omprof::viewer
