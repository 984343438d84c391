// The report of one profile (`omprof report`): which sections it prints, in what order, with
// what titles; the tables themselves are report.cc's and the other views'.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "omp/states.h"
#include "proto/coverage.h"
#include "proto/text.h"
#include "viewer/busy_machine.h"
#include "viewer/call_views.h"
#include "viewer/derived_cells.h"
#include "viewer/idle_blame.h"
#include "viewer/path_tree.h"
#include "viewer/regions_view.h"
#include "viewer/report.h"
#include "viewer/report_output.h"

namespace omprof::viewer {

bool any_view(const ReportOptions& opt) {
  return opt.flat || opt.tree || opt.threads || opt.states || opt.parallel_regions ||
         opt.idle_blame || opt.explicit_regions || opt.lines || !opt.callers.empty() ||
         !opt.callees.empty();
}

// "; 3 of 5 constructs, omprof run --rate 1000 takes 5 times as many samples" when some
// constructs rest on fewer than kFewSamples samples.
static std::string rough_rows_note(const Model& m) {
  size_t all = 0;
  const size_t rough = rough_parallel_regions(m, &all);
  if (!rough) return "";
  const uint32_t rate = m.profile->header.rate_hz();
  const uint32_t more = std::min<uint32_t>(std::max<uint32_t>(rate, 1) * 5, 10000);
  return fmt::format(": {} of {} construct{}; omprof run --rate {} takes {:.0f} times as many",
                     rough, all, all == 1 ? "" : "s", more,
                     double(more) / double(std::max<uint32_t>(rate, 1)));
}

// "; %: of all thread time, 41.2% of it idle workers (<omp:idle>)" where idle time weighs.
static std::string idle_share_note(const Model& m, const IdleTotals& totals) {
  const uint64_t idle = totals.idle_ns;
  if (m.total_weight_ns == 0 || double(idle) < 0.01 * double(m.total_weight_ns)) return "";
  return fmt::format("; %: of all thread time, {}% of it idle workers (<omp:idle>)",
                     percent(double(idle), double(m.total_weight_ns)));
}

static void print_idle_blame(ReportOutput& out, const Model& m, const IdleTotals& idle,
                             const ReportOptions& opt) {
  out.section("idle_blame",
              fmt::format("Idle workers blamed on the serial code that kept them idle ({} s of "
                          "{} s of idle workers; idle%: of those {} s):",
                          seconds(idle.blamed_ns), seconds(idle.idle_ns), seconds(idle.idle_ns)),
              idle_blame_table(m, opt.top));
}

// The views of the call paths: flat, tree, lines, callers and callees.
static void print_path_views(ReportOutput& out, const Model& m, const ReportOptions& opt,
                             const HeaderFacts& facts) {
  const bool any = any_view(opt);
  const std::string top = opt.top ? "top " + std::to_string(opt.top) : std::string("all");
  if (opt.flat || !any)
    out.section("flat",
                fmt::format("Flat profile ({} by {} time; total_err_s: one standard error of "
                            "total_s from sampling{}):",
                            top, sort_key_name(opt.sort), idle_share_note(m, facts.idle)),
                flat_table(m, opt.top, opt.format, opt.sort));
  if (opt.tree || (!any && opt.format != Format::kCsv))
    out.section("tree", fmt::format("Call tree (nodes >= {}% of total):", opt.min_percent),
                tree_table(m, opt.min_percent, opt.format));
  if (opt.lines) {
    LineTotals lines;
    lines.add(m);
    out.section("lines",
                fmt::format("Source lines ({} by {} time; total: the line anywhere in the "
                            "stack, a call's line holding the call's time):",
                            top, sort_key_name(opt.sort)),
                lines.table(m.total_weight_ns, opt.top, opt.format, opt.sort));
  }
  for (const auto& [func, callers] : {std::pair{opt.callees, false}, {opt.callers, true}}) {
    if (func.empty()) continue;
    CallTree tree(callers, func);
    if (!tree.add(m))
      throw FilterError(fmt::format("{} '{}': no function of that name, or matching it, in {}",
                                    callers ? "--callers" : "--callees", func, m.profile->path));
    out.section(tree.key(), tree.title(opt.min_percent),
                tree.table(opt.min_percent, m.total_weight_ns, opt.format));
  }
}

static void print_explicit_regions(ReportOutput& out, const Model& m, const ReportOptions& opt) {
  const format::Profile& p = *m.profile;
  const RegionCpu cpu = region_cpu_source(p);
  out.section(
      "regions",
      fmt::format("Explicit regions (wall times exact; {}; CPU time {}; inclusive):",
                  p.header.exact_waits() ? "work sampled, OpenMP waits exact" : "work/wait sampled",
                  cpu == RegionCpu::kExact     ? "exact"
                  : cpu == RegionCpu::kSampled ? "sampled, cpu_err = one standard error"
                                               : "unknown (wall-clock sampling; run with "
                                                 "--region-cpu to measure it)"),
      region_tree_table(m, opt.format));
}

void print_report(ReportOutput& out, const format::Profile& p, const ReportOptions& asked) {
  // JSON without a view flag is every view of the profile, as the README says (it was the
  // header, the flat profile and the tree only).
  ReportOptions opt = asked;
  if (opt.format == Format::kJson && !any_view(opt))
    opt.flat = opt.tree = opt.threads = opt.states = opt.parallel_regions = opt.idle_blame =
        opt.explicit_regions = opt.lines = true;
  Model m = build_model(p, opt.view);
  apply_filter(m, SampleFilter(opt.filter));
  const HeaderFacts facts = header_facts(m);
  if (opt.header) {
    print_header(out.text_out(), m, facts);
    print_filter_line(out.text_out(), m, opt.filter);
    out.value("header", header_json(m, facts, opt.filter));
  }
  print_path_views(out, m, opt, facts);
  if (opt.threads)
    out.section("threads",
                "Threads (wait_err%: one standard error of wait% from sampling; ~: rough):",
                thread_table(m, opt.format));
  if (opt.states) out.section("states", "OpenMP states:", state_table(m, opt.format));
  if (opt.parallel_regions)
    out.section("parallel_regions",
                fmt::format("Parallel regions (eff_err%: one standard error of the efficiency "
                            "from sampling; ~: below {} samples, rough{}):",
                            kFewSamples, rough_rows_note(m)),
                parallel_region_table(m, opt.format));
  if (opt.idle_blame) print_idle_blame(out, m, facts.idle, opt);
  if (opt.explicit_regions) print_explicit_regions(out, m, opt);
}

}  // namespace omprof::viewer
