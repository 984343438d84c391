// `omprof diff BASE NEW`: each side a profile, or a directory of them (the ranks of one job, or
// repeated runs), reduced to its totals as its files are read.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "viewer/commands/commands.h"
#include "viewer/commands/options.h"
#include "viewer/diff.h"
#include "viewer/profile_inputs.h"
#include "viewer/report_output.h"
#include "viewer/summary_reader.h"

namespace omprof::viewer::commands {

namespace {

struct DiffCommand {
  std::string base, now;
  std::string view = "user", format = "text", sort = "self", colour = "auto";
  size_t top = 20, width = 0;
  const CLI::Option* top_option = nullptr;
  const CLI::Option* width_option = nullptr;
  FilterOptions filter;
};

bool read_side(const std::string& arg, omp::View view, const SampleFilter& filter,
               SymbolCache& symbols, DiffSide& side) {
  int status = 0;
  std::vector<std::string> files;
  for (const std::string& f : expand_profile_arguments({arg}, status))
    if (!is_summary_path(f)) files.push_back(f);  // an MPI job summary: no samples
  for (const std::string& f : files) {
    try {
      const format::Profile p = load_profile(f, symbols);  // the model points into it
      Model m = build_model(p, view);
      apply_filter(m, filter);
      side.add(m);
    } catch (const format::ProfileError& e) {
      tell_unreadable(e, status);
      return false;
    }
  }
  side.finish();
  if (status == 0 && side.profiles == 0)
    std::cerr << "omprof: diff: " << arg << ": no profile in it\n";
  return status == 0 && side.profiles > 0;
}

void print_sides(ReportOutput& out, const DiffCommand& d, const DiffSide& base,
                 const DiffSide& now) {
  out.text_out() << fmt::format("Base:      {} ({} profile{})\nNew:       {} ({} profile{})\n",
                                d.base, base.profiles, base.profiles == 1 ? "" : "s", d.now,
                                now.profiles, now.profiles == 1 ? "" : "s");
  if (!d.filter.empty()) out.text_out() << "Filter:    " << d.filter.describe() << "\n";
  out.value("base", {{"input", d.base}, {"profiles", base.profiles}});
  out.value("new", {{"input", d.now}, {"profiles", now.profiles}});
}

void print_regions(ReportOutput& out, const DiffSide& base, const DiffSide& now, Format format) {
  if (!base.regions.empty() || !now.regions.empty())
    out.section("regions",
                "Explicit regions (incl: the slowest thread's inclusive wall time, averaged "
                "over profiles; calls summed):",
                diff_regions_table(base, now, format));
  else
    out.text_out() << "\n(No explicit regions in either run.)\n";
  if (!base.parallel_regions.empty() || !now.parallel_regions.empty())
    out.section("parallel_regions",
                "Parallel regions (wall: fork to join, summed over instances, averaged over "
                "profiles; incl: thread time inside, summed over threads and profiles; wait% of "
                "that time):",
                diff_parallel_regions_table(base, now, format));
  else
    out.text_out() << "\n(No parallel regions in either run.)\n";
}

int run(DiffCommand& d) {
  omp::View view = omp::View::kUser;
  omp::parse_view(d.view, view);
  const Format format = parse_format(d.format);
  if (machine_readable(format) && !d.top_option->count()) d.top = 0;
  if (!valid_filter(d.filter)) return 2;
  const SampleFilter filter(d.filter);
  SymbolCache symbols;
  DiffSide base, now;
  if (!read_side(d.base, view, filter, symbols, base) ||
      !read_side(d.now, view, filter, symbols, now))
    return 1;
  ReportOutput out(std::cout, format, d.width_option->count() ? d.width : terminal_width());
  print_sides(out, d, base, now);
  out.section("totals", "Totals (thread time: sampled and measured, summed over threads):",
              diff_totals_table(base, now, format));
  if (!base.counters.empty() || !now.counters.empty())
    out.section("counters",
                "Counter events (--counters; summed over threads and profiles; rates per second "
                "of the counting threads' CPU time; empty where a side did not count it):",
                diff_counters_table(base, now, format));
  out.section("functions",
              fmt::format("Functions ({} by change of {} time; delta = new - base):",
                          d.top ? "top " + std::to_string(d.top) : std::string("all"), d.sort),
              diff_functions_table(base, now, d.top, d.sort == "total", format));
  print_regions(out, base, now, format);
  out.finish();
  return 0;
}

}  // namespace

Command add_diff(CLI::App& app) {
  auto d = std::make_shared<DiffCommand>();
  CLI::App* cmd =
      app.add_subcommand("diff", "Compare two runs: what changed per function and region");
  cmd->add_option("base", d->base, "The run to compare against: a profile or a directory")
      ->required();
  cmd->add_option("new", d->now, "The run to compare: a profile or a directory")->required();
  add_view_option(cmd, d->view);
  add_format_options(cmd, d->format, "text, csv or json");
  d->top_option =
      cmd->add_option("--top", d->top, "Function rows (0: all; CSV, JSON: all unless given)")
          ->check(kCount)
          ->capture_default_str();
  d->width_option = cmd->add_option("--width", d->width,
                                    "Text: fit lines to this many columns (0: full names; "
                                    "default: the terminal's width, else 0)");
  cmd->add_option("--color", d->colour,
                  "Text: colours: auto (a terminal without NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  cmd->add_option("--sort", d->sort, "Order functions by the change of their self or total time")
      ->check(CLI::IsMember({"self", "total"}))
      ->capture_default_str();
  add_filter_options(cmd, d->filter);
  return {cmd, [d] { return run(*d); }};
}

}  // namespace omprof::viewer::commands
