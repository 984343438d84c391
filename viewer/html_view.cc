#include "viewer/html_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "omp/states.h"
#include "viewer/derived_cells.h"
#include "viewer/regions_view.h"
#include "viewer/report.h"

namespace omprof::viewer {

// Explicit regions a page shows per profile (the largest, with their enclosing regions).
constexpr size_t kMaxPageRegions = 2000;

// Rows of a table with a "rank" (and, for threads, the profile) column in front.
static void append_rows(nlohmann::json& to, const Table& t, const format::Profile& p) {
  for (auto row : t.to_json()) {
    row["rank"] = p.header.mpi_rank();
    to.push_back(std::move(row));
  }
}

void HtmlView::add(const format::Profile& p, const Model& m) {
  ++profiles_;
  const size_t lanes_before = timeline_.lanes.size();
  add_to_timeline(timeline_, p, m);
  nlohmann::json h;
  std::string cmd;
  for (const auto& a : p.header.argv()) cmd += (cmd.empty() ? "" : " ") + a;
  h["profile"] = p.path;
  h["command"] = cmd;
  h["host"] = p.header.hostname();
  h["rank"] = p.header.mpi_rank();
  h["duration_s"] = double(p.header.duration_ns()) * 1e-9;
  h["samples"] = m.total_samples;
  h["sampled_s"] = double(m.total_weight_ns) * 1e-9;
  h["rate_hz"] = p.header.rate_hz();
  h["threads"] = p.threads.size();
  h["omp_runtime"] = p.header.omp_runtime();
  // The report header's facts of issue 37 (format 1.14), where the profile has them.
  const nlohmann::json full = header_json(m, FilterOptions{});
  for (const char* key : {"master_serial_s", "master_parallel_s", "idle_workers_s", "idle_blamed_s",
                          "run_delay_s", "busy_machine"})
    if (full.contains(key)) h[key] = full[key];
  if (full.contains("counters")) h["counters"] = full["counters"];
  if (full.contains("derived_metrics")) h["derived_metrics"] = full["derived_metrics"];
  headers_.push_back(std::move(h));
  const std::vector<std::string> events(p.header.counter_event().begin(),
                                        p.header.counter_event().end());
  auto add_once = [](std::vector<std::string>& to, const std::string& name) {
    if (std::find(to.begin(), to.end(), name) == to.end()) to.push_back(name);
  };
  for (const std::string& e : events) add_once(counter_events_, e);
  // The region tables' counter columns: sampled, exact (--region-counters), derived.
  for (const std::string& e : events) add_once(counter_columns_, e);
  if (p.header.region_counters_exact())
    for (const std::string& e : events) add_once(counter_columns_, e + "_exact");
  for (const std::string& d : derived_columns(events)) add_once(counter_columns_, d);

  for (const StackTotal& s : tree_from_losses_ ? std::vector<StackTotal>() : stack_totals(m)) {
    auto count = [&](size_t n) {
      if (n >= counts_.size()) counts_.resize(n + 1);
      counts_[n].incl += s.ns();
      counts_[n].wait += s.wait_ns;
    };
    size_t cur = 0;
    count(cur);
    for (size_t i = s.stack.size(); i-- > 0;) {
      cur = trie_.child(cur, s.stack[i].name);
      count(cur);
    }
    counts_[cur].self += s.ns();
  }
  place_leads(lanes_before);
  append_rows(threads_, thread_table(m, Format::kJson), p);
  append_rows(states_, state_table(m), p);
  append_rows(parallel_regions_, parallel_region_table(m, Format::kJson), p);
  append_rows(regions_, region_tree_table(m, Format::kJson, kMaxPageRegions), p);
  if (p.header.mpi_rank() >= 0) ranks_.push_back(rank_numbers(p));
}

void HtmlView::set_scaling(nlohmann::json analysis, const std::vector<Loss>& path_losses) {
  scaling_ = std::move(analysis);
  tree_from_losses_ = true;
  for (const Loss& l : path_losses) {
    if (l.total() <= 0) continue;
    const double working = std::max(0.0, l.of(LossClass::kWork) + l.of(LossClass::kOffCpu));
    const auto incl = uint64_t(l.total());
    const auto wait = uint64_t(std::clamp(l.total() - working, 0.0, l.total()));
    size_t cur = 0;
    auto count = [&](size_t n) {
      if (n >= counts_.size()) counts_.resize(n + 1);
      counts_[n].incl += incl;
      counts_[n].wait += wait;
    };
    count(cur);
    for (size_t from = 0; from <= l.key.size();) {
      size_t to = l.key.find(';', from);
      if (to == std::string::npos) to = l.key.size();
      cur = trie_.child(cur, omp::Name(l.key.substr(from, to - from)));
      count(cur);
      from = to + 1;
    }
    counts_[cur].self += incl;
  }
}

// Each trie node's node in the tree drawn: its own (`shown`), else its parent's "<other>"
// (`folded_to`: the parent folded it), else its parent's.
static std::vector<uint32_t> page_nodes(const NameTrie& trie, const std::vector<uint32_t>& shown,
                                        const std::vector<uint32_t>& folded_to) {
  std::vector<uint32_t> node(trie.size(), 0);
  for (size_t n = 1; n < trie.size(); ++n) {  // a parent is older than its children
    const size_t parent = trie.parent(n);
    node[n] = shown[n] != ~uint32_t(0)            ? shown[n]
              : folded_to[parent] != ~uint32_t(0) ? folded_to[parent]
                                                  : node[parent];
  }
  return node;
}

// The timeline's leading samples of lanes [from, end) as nodes of the call tree (paths the tree
// has already: the same model's samples).
void HtmlView::place_leads(size_t from) {
  for (size_t l = from; l < timeline_.lanes.size(); ++l)
    for (TimelineLane::Cell& c : timeline_.lanes[l].cells)
      for (TimelineLane::Cell::Lead& lead : c.leads) {
        size_t cur = 0;
        for (size_t i = lead.stack.size(); i-- > 0;) cur = trie_.child(cur, lead.stack[i].name);
        lead.node = uint32_t(cur);
      }
  if (counts_.size() < trie_.size()) counts_.resize(trie_.size());
}

nlohmann::json HtmlView::tree_json(std::vector<uint32_t>* page_node) const {
  // The tree as parallel arrays in preorder (parents before children, children by time), with
  // the small nodes folded into one "<other>" child per parent.
  const uint64_t total = counts_[0].incl;
  const double min_ns = min_fraction_ * double(total);
  std::vector<uint32_t> name_of, parent_of;
  std::vector<uint64_t> incl_of, wait_of;
  // The page's name table: the names of the nodes shown, by first use.
  std::vector<std::string> names{"<other>"};
  const uint32_t other = 0;
  std::unordered_map<omp::Name, uint32_t> name_ids;
  auto name_id = [&](const omp::Name& name) {
    auto [it, added] = name_ids.emplace(name, uint32_t(names.size()));
    if (added) names.push_back(name);
    return it->second;
  };
  struct Visit {
    uint32_t node, out_parent;
  };
  std::vector<Visit> todo{{0, 0}};
  std::vector<uint32_t> shown(trie_.size(), ~uint32_t(0)), folded_to(shown);  // page_nodes()
  while (!todo.empty()) {
    const Visit v = todo.back();
    todo.pop_back();
    const Counts& n = counts_[v.node];
    const uint32_t out = uint32_t(name_of.size());
    shown[v.node] = out;
    name_of.push_back(v.node == 0 ? uint32_t(-1) : name_id(trie_.name(v.node)));
    parent_of.push_back(v.out_parent);
    incl_of.push_back(n.incl);
    wait_of.push_back(n.wait);
    std::vector<uint32_t> kids;
    uint64_t folded = 0, folded_wait = 0;
    trie_.for_each_child(v.node, [&](size_t child) {
      if (double(counts_[child].incl) >= min_ns) {
        kids.push_back(uint32_t(child));
      } else {
        folded += counts_[child].incl;
        folded_wait += counts_[child].wait;
      }
    });
    if (folded) {
      folded_to[v.node] = uint32_t(name_of.size());
      name_of.push_back(other);
      parent_of.push_back(out);
      incl_of.push_back(folded);
      wait_of.push_back(folded_wait);
    }
    std::stable_sort(kids.begin(), kids.end(),
                     [&](uint32_t a, uint32_t b) { return counts_[a].incl < counts_[b].incl; });
    for (uint32_t k : kids) todo.push_back({k, out});  // largest popped first
  }
  if (page_node) *page_node = page_nodes(trie_, shown, folded_to);
  nlohmann::json tree;
  tree["names"] = names;
  tree["name"] = name_of;
  tree["parent"] = parent_of;
  tree["incl_ns"] = incl_of;
  tree["wait_ns"] = wait_of;
  return tree;
}

nlohmann::json HtmlView::data() const {
  nlohmann::json d;
  d["headers"] = headers_;
  std::vector<uint32_t> page_node;
  d["tree"] = tree_json(&page_node);
  d["threads"] = threads_;
  d["counter_events"] = counter_events_;
  d["counter_columns"] = counter_columns_;
  d["states"] = states_;
  d["parallel_regions"] = parallel_regions_;
  d["regions"] = regions_;
  if (!scaling_.is_null()) d["scaling"] = scaling_;
  if (!advice_.is_null()) d["advice"] = advice_;
  Timeline timeline = timeline_;
  finish_timeline(timeline);
  if (!timeline.lanes.empty() && !tree_from_losses_)
    d["timeline"] = timeline_page_json(timeline, &page_node);
  if (!ranks_.empty()) {
    std::vector<RankNumbers> sorted = ranks_;
    std::sort(sorted.begin(), sorted.end(),
              [](const RankNumbers& a, const RankNumbers& b) { return a.rank < b.rank; });
    d["ranks"] = ranks_table(sorted).to_json();
  } else {
    d["ranks"] = nlohmann::json::array();
  }
  return d;
}

void HtmlView::write(std::ostream& out) const {
  std::string title = scaling_.is_null() ? "omprof" : "omprof scaling";
  if (!headers_.empty()) title += ": " + headers_[0].value("command", std::string());
  write_html_page(out, title, data());
}

}  // namespace omprof::viewer
