#include "viewer/filter.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "omp/states.h"
#include "viewer/export.h"

namespace omprof::viewer {

std::vector<std::string> state_names() {
  std::set<std::string> names;
  // State codes are below 0x10000 (proto/state_codes.h, proto/mpi_calls.h).
  for (uint32_t code = 0; code < 0x10000; ++code) {
    const omp::StateInfo info = omp::describe_state(code);
    if (std::string(info.name) != "unknown") names.insert(info.name);
  }
  for (const char* group : {"work", "wait", "overhead"}) names.erase(group);
  return {names.begin(), names.end()};
}

static NamePattern compile(const std::string& pattern, const char* option) {
  NamePattern re;
  std::string error;
  if (!re.compile(pattern, error))
    throw FilterError(
        fmt::format("{} '{}': not a valid regular expression ({})", option, pattern, error));
  return re;
}

SampleFilter::SampleFilter(const FilterOptions& opt) : opt_(opt) {
  if (!opt_.focus.empty()) focus_ = compile(opt_.focus, "--focus");
  if (!opt_.ignore.empty()) ignore_ = compile(opt_.ignore, "--ignore");
  if (opt_.states.empty()) return;
  const std::vector<std::string> known = state_names();
  for (const std::string& s : opt_.states)
    if (s != "work" && s != "wait" && s != "overhead" &&
        std::find(known.begin(), known.end(), s) == known.end()) {
      std::string list = "work, wait, overhead";
      for (const std::string& k : known) list += ", " + k;
      throw FilterError(fmt::format("--state '{}': not a state (one of: {})", s, list));
    }
}

bool SampleFilter::state_matches(uint32_t state) const {
  const std::string name = omp::describe_state(state).name;
  for (const std::string& s : opt_.states) {
    if (s == name) return true;
    if (s == "work" && !omp::is_wait(state)) return true;
    if (s == "wait" && omp::is_wait(state)) return true;
    if (s == "overhead" && omp::is_overhead(state)) return true;
  }
  return false;
}

// The region's path "outer/inner/leaf" holds the wanted path as whole components: a name
// matches that region wherever it is nested, a path matches that path and what is nested in it.
bool SampleFilter::region_matches(const format::Profile& p, uint64_t node) const {
  const std::string path = "/" + region_path(p, node) + "/";
  for (const std::string& r : opt_.regions)
    if (path.find("/" + r + "/") != std::string::npos) return true;
  return false;
}

bool SampleFilter::keeps(const format::Profile& p, const ViewSample& s) const {
  if (!opt_.threads.empty() &&
      std::find(opt_.threads.begin(), opt_.threads.end(), s.thread) == opt_.threads.end())
    return false;
  if (!opt_.states.empty() && !state_matches(s.state)) return false;
  if (!opt_.regions.empty() && !region_matches(p, s.region_node)) return false;
  auto any_frame = [&s](const NamePattern& re) {
    return std::any_of(s.stack.begin(), s.stack.end(),
                       [&re](const omp::Frame& f) { return re.found_in(f.name.str()); });
  };
  if (!opt_.focus.empty() && !any_frame(focus_)) return false;
  if (!opt_.ignore.empty() && any_frame(ignore_)) return false;
  return true;
}

std::string FilterOptions::describe() const {
  std::string out;
  auto add = [&out](const std::string& option, const std::string& value) {
    out += (out.empty() ? "" : " ") + option + " '" + value + "'";
  };
  for (uint32_t t : threads) add("--thread", std::to_string(t));
  for (const auto& s : states) add("--state", s);
  for (const auto& r : regions) add("--region", r);
  if (!focus.empty()) add("--focus", focus);
  if (!ignore.empty()) add("--ignore", ignore);
  return out;
}

void apply_filter(Model& m, const SampleFilter& filter) {
  // --thread N of a profile without thread N is a mistake, not an empty report.
  const std::vector<uint32_t>& asked = filter.options().threads;
  if (!asked.empty() && std::none_of(asked.begin(), asked.end(), [&](uint32_t t) {
        return m.profile->threads.count(t) != 0;
      })) {
    std::string have;
    for (const auto& [index, t] : m.profile->threads)
      have += (have.empty() ? "" : ", ") + std::to_string(index);
    throw FilterError(
        fmt::format("--thread: {} has no such thread (its threads: {})", m.profile->path, have));
  }
  m.filtered = !filter.empty();
  m.kept_weight_ns = 0;
  m.kept_samples = 0;
  std::vector<ViewSample> kept;
  kept.reserve(m.samples.size());
  std::vector<uint32_t> kept_as(m.samples.size(), kNoView);  // old index -> new
  for (size_t i = 0; i < m.samples.size(); ++i) {
    ViewSample& s = m.samples[i];
    if (!filter.keeps(*m.profile, s)) continue;
    m.kept_weight_ns += s.weight_ns;
    m.kept_samples += s.count;
    kept_as[i] = uint32_t(kept.size());
    kept.push_back(std::move(s));
  }
  m.samples = std::move(kept);
  for (auto& [thread, views] : m.sample_views)
    for (uint32_t& v : views)
      if (v != kNoView && !(v & kReplacedView)) v = kept_as[v];
}

}  // namespace omprof::viewer
