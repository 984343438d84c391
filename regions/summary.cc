#include "regions/summary.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "proto/text.h"
#include "regions/names.h"

namespace omprof::regions {

namespace {

std::string secs(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", ns / 1e9);
  return buf;
}

}  // namespace

namespace {

// One thread's numbers for a node, added to the node's row.
void add_thread_node(SummaryRow& r, const NodeSnapshot& n) {
  r.calls += n.calls;
  if (r.threads == 0 || n.wall_ns < r.wall_min_ns) r.wall_min_ns = n.wall_ns;
  r.wall_max_ns = std::max(r.wall_max_ns, n.wall_ns);
  r.wall_sum_ns += n.wall_ns;
  r.self_max_ns = r.threads == 0 ? n.self_wall_ns : std::max(r.self_max_ns, n.self_wall_ns);
  r.self_avg_ns += double(n.self_wall_ns);
  r.cpu_sum_ns += n.cpu_ns;
  r.self_cpu_sum_ns += n.self_cpu_ns;
  r.active |= n.active;
  ++r.threads;
}

// The rows in preorder, with an explicit stack (nesting may be deeper than the C stack allows);
// siblings by inclusive time, then name, for a stable order.
std::vector<SummaryRow> in_preorder(const std::map<uint32_t, SummaryRow>& rows) {
  std::map<uint32_t, std::vector<uint32_t>> children;
  for (const auto& [node, r] : rows) children[r.parent].push_back(node);
  std::vector<SummaryRow> out;
  auto sorted_children = [&](uint32_t parent) {
    auto kids = children[parent];
    std::sort(kids.begin(), kids.end(), [&](uint32_t a, uint32_t b) {
      const SummaryRow& x = rows.at(a);
      const SummaryRow& y = rows.at(b);
      return x.wall_max_ns != y.wall_max_ns ? x.wall_max_ns > y.wall_max_ns : x.name < y.name;
    });
    return kids;
  };
  std::vector<std::pair<uint32_t, int>> stack;  // (node, depth), next on top
  for (auto kids = sorted_children(0); !kids.empty(); kids.pop_back())
    stack.emplace_back(kids.back(), 0);
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    SummaryRow r = rows.at(node);
    r.depth = depth;
    out.push_back(std::move(r));
    for (auto kids = sorted_children(node); !kids.empty(); kids.pop_back())
      stack.emplace_back(kids.back(), depth + 1);
  }
  return out;
}

}  // namespace

std::vector<SummaryRow> summarize(const std::vector<ThreadSnapshot>& threads,
                                  const std::function<NodeInfo(uint32_t)>& node_info,
                                  const std::function<std::string(int32_t)>& name_of) {
  std::map<uint32_t, SummaryRow> rows;
  // Every node on a path to a node with data gets a row, so the tree is connected even where
  // an ancestor ran on another thread only.
  auto ensure = [&](uint32_t node) -> SummaryRow& {
    auto it = rows.find(node);
    if (it != rows.end()) return it->second;
    SummaryRow r;
    r.node = node;
    NodeInfo info = node_info(node);
    r.parent = info.parent;
    r.name = name_of(info.region);
    return rows.emplace(node, r).first->second;
  };
  for (const ThreadSnapshot& t : threads)
    for (const NodeSnapshot& n : t.nodes) {
      add_thread_node(ensure(n.node), n);
    }
  std::vector<uint32_t> pending;
  for (const auto& [node, r] : rows) pending.push_back(node);
  for (size_t i = 0; i < pending.size(); ++i) {
    const uint32_t parent = rows.at(pending[i]).parent;
    if (parent != 0 && !rows.count(parent)) {
      ensure(parent);
      pending.push_back(parent);
    }
  }
  for (auto& [node, r] : rows)
    if (r.threads) {
      r.wall_avg_ns = double(r.wall_sum_ns) / r.threads;
      r.self_avg_ns /= r.threads;
    }
  return in_preorder(rows);
}

void write_text(std::ostream& out, const SummaryHeader& h, const std::vector<SummaryRow>& rows) {
  bool active = false;
  for (const auto& r : rows) active |= r.active;
  char line[512];
  std::snprintf(line, sizeof line,
                "omprof region summary: pid %llu, %zu threads, window %.6f s, active regions: %s\n",
                static_cast<unsigned long long>(h.pid), h.threads, double(h.window_ns) / 1e9,
                active ? "yes (interim snapshot)" : "no");
  out << line;
  if (!h.cpu_measured)
    out << "cpu_s: not measured (wall time only; omprof run --region-cpu measures it, and "
           "omprof report estimates it from the samples)\n";
  std::snprintf(line, sizeof line, "%12s %4s %12s %12s %12s %7s %6s  %s\n", "calls", "thr",
                "incl_s", "self_s", "cpu_s", "%", "imb%", "region");
  out << line;
  for (const auto& r : rows) {
    std::string label = std::string(size_t(2 * std::min(r.depth, 30)), ' ') + escape_name(r.name);
    if (r.active) label += " [active]";
    const double pct = h.window_ns > 0 ? 100.0 * double(r.wall_max_ns) / double(h.window_ns) : 0;
    char cpu[32] = "-";
    if (h.cpu_measured) std::snprintf(cpu, sizeof cpu, "%.6f", double(r.cpu_sum_ns) / 1e9);
    std::snprintf(line, sizeof line, "%12lld %4d %12.6f %12.6f %12s %7.2f %6.1f  %s\n",
                  static_cast<long long>(r.calls), r.threads, double(r.wall_max_ns) / 1e9,
                  double(r.self_max_ns) / 1e9, cpu, pct, 100.0 * r.imbalance(), label.c_str());
    out << line;
  }
}

void write_csv(std::ostream& out, const SummaryHeader& h, const std::vector<SummaryRow>& rows) {
  out << "node_id,parent_id,depth,name,calls,threads,incl_max_s,incl_min_s,incl_avg_s,"
         "self_max_s,self_avg_s,cpu_s,self_cpu_s,pct_window,imbalance,active\n";
  for (const auto& r : rows) {
    const double pct = h.window_ns > 0 ? 100.0 * double(r.wall_max_ns) / double(h.window_ns) : 0;
    char nums[256];
    std::snprintf(nums, sizeof nums, "%.4f,%.4f", pct, r.imbalance());
    out << r.node << "," << r.parent << "," << r.depth << "," << text::csv_quote(r.name) << ","
        << r.calls << "," << r.threads << "," << secs(double(r.wall_max_ns)) << ","
        << secs(double(r.wall_min_ns)) << "," << secs(r.wall_avg_ns) << ","
        << secs(double(r.self_max_ns)) << "," << secs(r.self_avg_ns) << ","
        << (h.cpu_measured ? secs(double(r.cpu_sum_ns)) : "") << ","
        << (h.cpu_measured ? secs(double(r.self_cpu_sum_ns)) : "") << "," << nums << ","
        << (r.active ? "true" : "false") << "\n";
  }
}

bool write_summary_to(const char* path, bool csv, const SummaryHeader& h,
                      const std::vector<SummaryRow>& rows, std::string* why) {
  if (path && !*path) {
    *why = "the path is empty (NULL or \"-\" is stdout)";
    return false;
  }
  const bool to_stdout = !path || std::string(path) == "-";
  std::ofstream file;
  if (!to_stdout) {
    file.open(path, std::ios::out | std::ios::trunc);
    if (!file) {
      *why = std::string("cannot write '") + path + "'";
      return false;
    }
  }
  std::ostream& out = to_stdout ? std::cout : file;
  if (csv)
    write_csv(out, h, rows);
  else
    write_text(out, h, rows);
  out.flush();
  if (!out) {
    *why = "write failed";
    return false;
  }
  return true;
}

}  // namespace omprof::regions
