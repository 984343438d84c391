#include "viewer/header_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "proto/coverage.h"
#include "proto/text.h"
#include "viewer/counter_facts.h"
#include "viewer/table.h"

namespace omprof::viewer {

// An argument as a shell would need it: as is when plain, else in $'...' with C escapes, so
// spaces, newlines and bytes that are not UTF-8 text (a Latin-1 file name) stay unambiguous.
// Valid UTF-8 without control characters: printable as it is.
bool printable_text(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 1 && (c < 0x20 || c == 0x7f))) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n;
  }
  return true;
}

std::string shell_quote(const std::string& arg) {
  bool plain = !arg.empty();
  for (unsigned char c : arg)
    plain = plain && (std::isalnum(c) || std::strchr("_./:=+-,@%", c) != nullptr);
  if (plain) return arg;
  if (printable_text(arg) && arg.find('\'') == std::string::npos) return "'" + arg + "'";
  std::string out = "$'";
  for (unsigned char c : arg) {
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += char(c);
    }
  }
  return out + "'";
}

namespace {

const char* view_name(omp::View v) {
  switch (v) {
    case omp::View::kUser:
      return "user";
    case omp::View::kExpert:
      return "expert";
    default:
      return "machine";
  }
}

const char* thread_level_name(int level) {
  static const char* names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                "MPI_THREAD_MULTIPLE"};
  return level >= 0 && level < 4 ? names[level] : "thread level unknown";
}

// Threads that left the task clock (collector/handler/clock_fallback.h); as `omprof run` notes
// (collector/context_switches.h), the task clock pays for each switch.
void print_clock_cost(std::ostream& out, const format::Profile& p) {
  const auto& h = p.header;
  uint64_t switches = 0, cpu_ns = 0, moved = 0, max_rate = 0;
  for (const auto& [i, t] : p.threads) {
    switches += t.context_switches();
    cpu_ns += t.cpu_time_ns();
    if (t.cpu_clock_from_ns() > 0) {
      ++moved;
      max_rate = std::max<uint64_t>(max_rate, t.switches_per_cpu_s_at_move());
    }
  }
  if (moved > 0)
    out << fmt::format(
        "           {} of {} threads moved to the cpu clock (kernel ticks) when they switched "
        "up to {} times per CPU-second\n",
        moved, p.threads.size(), max_rate);
  else if (h.clock() == v1::CLOCK_TASK && cpu_ns > 0 && double(switches) >= 2000.0 * cpu_ns * 1e-9)
    out << fmt::format(
        "           {} context switches ({:.0f} per CPU-second), each one a cost of the task "
        "clock: --clock cpu avoids it\n",
        switches, double(switches) / (cpu_ns * 1e-9));
}

void print_mpi_lines(std::ostream& out, const format::Profile& p) {
  const auto& h = p.header;
  out << fmt::format("MPI rank:  {}{}\n", h.mpi_rank(),
                     h.mpi_size() > 0 ? fmt::format(" of {}", h.mpi_size()) : "");
  // The library's version string up to its first comma or line ("Open MPI v4.1.4, package:
  // ...", "MPICH Version:<TAB>4.0.2<LF>MPICH Release date: ..."), tabs as spaces.
  std::string library = h.mpi_library().substr(0, h.mpi_library().find_first_of(",\n"));
  std::replace(library.begin(), library.end(), '\t', ' ');
  if (!library.empty())
    out << fmt::format("MPI:       {}, {}; {}\n", library, thread_level_name(h.mpi_thread_level()),
                       h.mpi_calls_exact() ? "time in MPI calls measured exactly (state mpi)"
                                           : "no MPI call was intercepted");
  uint32_t helpers = 0;
  uint64_t helper_cpu = 0;
  for (const auto& [i, t] : p.threads)
    if (t.mpi_library_thread()) {
      ++helpers;
      helper_cpu += t.cpu_time_ns();
    }
  if (helpers)
    out << fmt::format(
        "           {} threads of the MPI library ({} s CPU) not counted as the program's\n",
        helpers, seconds(helper_cpu));
  if (!h.mpi_note().empty()) out << fmt::format("           {}\n", h.mpi_note());
}

}  // namespace

// How the process ended, and whether the profile holds everything (format 1.4).
std::string ending_text(const v1::Header& h) {
  const v1::Ending& e = h.ending();
  std::string s;
  switch (e.kind()) {
    case v1::Ending::ENDING_EXITED:
      s = fmt::format("exit status {}", e.exit_status());
      break;
    case v1::Ending::ENDING_SIGNALED:
      s = fmt::format("killed by signal {} ({}){}", e.signal(), strsignal(int(e.signal())),
                      e.core_dumped() ? ", core dumped" : "");
      break;
    case v1::Ending::ENDING_NOT_OBSERVED:
      s = "not observed (the process left its journal and nobody saw it end)";
      break;
    case v1::Ending::ENDING_RUNNING:
      s = "still running: a snapshot of its journal";
      break;
    case v1::Ending::ENDING_EXEC:
      s = "the process image was replaced by exec()";
      break;
    default:
      s = "unknown";
  }
  if (h.recovered())
    s += "; recovered from the journal (all up to the end but explicit-region instances still "
         "open)";
  return s;
}

HeaderFacts header_facts(const Model& m) {
  const format::Profile& p = *m.profile;
  HeaderFacts f;
  f.duration_ns = p.header.duration_ns();
  for (const auto& [i, t] : p.threads) {
    if (t.is_main() && !f.master_parallel_ns)
      f.master_parallel_ns = std::min(t.parallel_wall_ns(), f.duration_ns);
    f.dropped += t.dropped_samples();
    f.dropped_ns += t.dropped_weight_ns();
    f.truncated += t.truncated_samples();
    f.unwind_failed += t.unwind_failed();
    f.short_stack += t.short_stack_samples();
    f.unmeasured_waits += t.unmeasured_waits();
    f.waits_dropped += t.waits_dropped();
    f.waits_dropped_ns += t.waits_dropped_ns();
  }
  f.idle = idle_totals(m);
  f.busy = busy_machine(m);
  const auto clock = p.header.clock();
  f.clock = clock == v1::CLOCK_WALL ? "wall" : clock == v1::CLOCK_TASK ? "task" : "cpu";
  f.view = view_name(m.view);
  return f;
}

std::string master_line(uint64_t duration_ns, uint64_t parallel_ns) {
  if (!parallel_ns) return "";
  return fmt::format("Master:    {} s serial ({}%), {} s in parallel regions (fork to join)\n",
                     seconds(duration_ns - parallel_ns),
                     percent(double(duration_ns - parallel_ns), double(duration_ns)),
                     seconds(parallel_ns));
}

std::string idle_line(const IdleTotals& idle) {
  constexpr uint64_t kShown = 500000;  // what prints as 0.000 s is not worth a line
  if (idle.idle_ns < kShown && idle.blamed_ns < kShown) return "";
  return fmt::format(
      "Idle:      {} s of OpenMP workers; {} s blamed on the main thread's serial code "
      "(--idle-blame)\n",
      seconds(idle.idle_ns), seconds(idle.blamed_ns));
}

namespace {

// "Master: ...", "Idle: ..." (format 1.14); the idle line only beside a master line.
void print_master_split(std::ostream& out, const HeaderFacts& f) {
  const std::string master = master_line(f.duration_ns, f.master_parallel_ns);
  if (master.empty()) return;
  out << master << idle_line(f.idle);
}

// "Machine: ..." and, when it was busy, a warning that waits may be preemption (format 1.14).
void print_machine_lines(std::ostream& out, const format::Profile& p, const BusyMachine& busy) {
  if (!busy.known) return;
  out << fmt::format("Machine:   {}\n", machine_text(p, busy));
  if (std::string w = busy_warning(p, busy); !w.empty()) out << fmt::format("WARNING:   {}\n", w);
}

// "Coverage: ..." (format 1.3) and its warning.
void print_coverage(std::ostream& out, const format::Profile& p) {
  const auto& h = p.header;
  if (h.format_major() == 1 && h.format_minor() < 3) return;
  format::Coverage coverage;
  coverage.period_ns = h.period_ns();
  for (const auto& [i, t] : p.threads)
    coverage.add_thread(t.armed_clock_ns(), t.periods_sampled(), t.sampling_lost());
  const double missing = coverage.missing_ns(), armed = double(coverage.armed_ns);
  out << fmt::format("Coverage:  {:.1f}% of the {} s the sampling clocks ran has samples\n",
                     armed > 0 ? 100.0 * (armed - missing) / armed : 100.0,
                     seconds(coverage.armed_ns));
  if (coverage.incomplete()) out << fmt::format("WARNING:   {}\n", coverage.describe());
}

// "Lost: ..." (what the profile lacks, and why) and "Coverage: ...".
void print_lost_lines(std::ostream& out, const format::Profile& p, const HeaderFacts& f) {
  out << fmt::format(
      "Lost:      {} dropped ({} s), {} truncated, {} unwind failures, {} untracked threads\n",
      f.dropped, seconds(f.dropped_ns), f.truncated, f.unwind_failed,
      p.trailer.threads_untracked());
  if (p.trailer.member_counts_lost())
    out << fmt::format(
        "           {} parallel-region member part(s) without exact counter events (group "
        "unreadable, nested too deep, or never reached the region's end)\n",
        p.trailer.member_counts_lost());
  if (p.trailer.threads_before_start())
    out << fmt::format(
        "           {} thread(s) started before omprof (by a library's constructor?): never "
        "seen start, not profiled\n",
        p.trailer.threads_before_start());
  if (f.short_stack)
    out << fmt::format(
        "           {} of the unwind failures: too little of the thread's stack was left to "
        "unwind (only the pc is kept)\n",
        f.short_stack);
  if (f.unmeasured_waits)
    out << fmt::format(
        "           {} waits not measured off the CPU (libgomp, over 16,000 waits a second: "
        "measuring them would cost more than they wait); their time off the CPU counts as "
        "<off-cpu> work\n",
        f.unmeasured_waits);
  if (f.waits_dropped)
    out << fmt::format(
        "           {} waits not recorded ({} s known of them): nested more than 64 deep on a "
        "thread, or beyond its table of wait sites\n",
        f.waits_dropped, seconds(f.waits_dropped_ns));
  if (p.trailer.fork_records_dropped())
    out << fmt::format(
        "           {} parallel-region or task creation paths not recorded (their samples sit "
        "under the enclosing region)\n",
        p.trailer.fork_records_dropped());
  print_coverage(out, p);
}

// "Sampling: ..." and what the clock cost; "Timing: ..." of the exact times.
void print_clock_lines(std::ostream& out, const format::Profile& p) {
  const auto& h = p.header;
  out << fmt::format("Sampling:  {} clock at {} Hz (period {} ms), max depth {}\n",
                     h.clock() == v1::CLOCK_WALL   ? "wall"
                     : h.clock() == v1::CLOCK_TASK ? "thread CPU (perf task-clock)"
                                                   : "thread CPU",
                     h.rate_hz(), fmt::format("{:.3f}", h.period_ns() / 1e6), h.max_depth());
  if (!h.clock_choice().empty()) out << fmt::format("           chosen: {}\n", h.clock_choice());
  print_clock_cost(out, p);
  if (h.wall_clock() == "tsc")
    out << fmt::format(
        "Timing:    exact times read the TSC, {:+.1f} us from CLOCK_MONOTONIC at the end\n",
        double(h.wall_clock_drift_ns()) * 1e-3);
  else if (!h.wall_clock().empty())
    out << fmt::format("Timing:    exact times read {}\n",
                       h.wall_clock() == "clock_monotonic" ? "CLOCK_MONOTONIC" : h.wall_clock());
  if (!h.wall_clock_note().empty()) out << fmt::format("WARNING:   {}\n", h.wall_clock_note());
}

void print_samples_line(std::ostream& out, const Model& m) {
  const format::Profile& p = *m.profile;
  const std::string replaced =
      m.replaced_samples
          ? fmt::format(" (and {} in waits timed exactly instead)", m.replaced_samples)
          : "";
  const char* plural = p.threads.size() == 1 ? "" : "s";
  if (p.header.exact_waits())
    out << fmt::format(
        "Samples:   {}{}, {} thread{}, {} s of thread time (sampled CPU, exact OpenMP waits, "
        "off-CPU)\n",
        m.total_samples, replaced, p.threads.size(), plural, seconds(m.total_weight_ns));
  else
    out << fmt::format("Samples:   {}{} ({} s sampled), {} thread{}\n", m.total_samples, replaced,
                       seconds(m.total_weight_ns), p.threads.size(), plural);
}

// "OpenMP: ...", "Settings: ..." and the runtime's warning.
void print_openmp_lines(std::ostream& out, const format::Profile& p) {
  const auto& h = p.header;
  if (!h.omp_runtime().empty()) {
    std::string about = text::printable(h.omp_runtime_version());
    if (h.ompt_active())
      about += (about.empty() ? "" : ", ") + std::string("OMPT states and user-model stacks");
    out << fmt::format("OpenMP:    {}{}\n", h.omp_runtime(),
                       about.empty() ? "" : " (" + about + ")");
  }
  if (h.omp_setting_size() > 0) {
    std::string settings;
    for (const auto& s : h.omp_setting()) settings += (settings.empty() ? "" : " ") + s;
    out << fmt::format("Settings:  {}\n", text::printable(settings));
  }
  if (!h.omp_note().empty()) out << fmt::format("WARNING:   {}\n", h.omp_note());
}

}  // namespace

void print_header(std::ostream& out, const Model& m, const HeaderFacts& f) {
  const format::Profile& p = *m.profile;
  const auto& h = p.header;
  std::string cmd;
  for (const auto& a : h.argv()) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  out << fmt::format("Profile:   {}\n", text::printable(p.path));
  out << fmt::format("Program:   {} (pid {}, host {})\n", text::printable(h.program()), h.pid(),
                     text::printable(h.hostname()));
  out << fmt::format("Command:   {}\n", text::printable(cmd));
  if (h.mpi_rank() >= 0) print_mpi_lines(out, p);
  out << fmt::format("Duration:  {} s wall\n", seconds(f.duration_ns));
  if (h.has_ending() || h.recovered()) out << fmt::format("Ended:     {}\n", ending_text(h));
  print_master_split(out, f);
  print_machine_lines(out, p, f.busy);
  print_clock_lines(out, p);
  print_samples_line(out, m);
  print_counter_lines(out, counter_facts(p));
  print_lost_lines(out, p, f);
  if (p.trailer.handler_calls_timed())
    out << fmt::format(
        "Handler:   {:.0f} ns per sample ({} samples timed)\n",
        double(p.trailer.handler_ns_total()) / double(p.trailer.handler_calls_timed()),
        p.trailer.handler_calls_timed());
  print_openmp_lines(out, p);
  for (const auto& note : p.notes) out << fmt::format("Symbols:   {}\n", text::printable(note));
  out << fmt::format("View:      {}\n", f.view);
}

void print_header(std::ostream& out, const Model& m) {
  print_header(out, m, header_facts(m));
}

void print_filter_line(std::ostream& out, const Model& m, const FilterOptions& filter) {
  if (!m.filtered) return;
  out << fmt::format(
      "Filter:    {} keeps {} samples, {} s of {} s ({}%); shares are of the "
      "whole profile\n",
      filter.describe(), m.kept_samples, seconds(m.kept_weight_ns), seconds(m.total_weight_ns),
      percent(m.kept_weight_ns, m.total_weight_ns));
}

nlohmann::json header_json(const Model& m, const HeaderFacts& f, const FilterOptions& filter) {
  const format::Profile& p = *m.profile;
  const auto& h = p.header;
  nlohmann::json j;
  j["profile"] = p.path;
  j["program"] = h.program();
  j["argv"] = std::vector<std::string>(h.argv().begin(), h.argv().end());
  j["pid"] = h.pid();
  j["host"] = h.hostname();
  j["duration_s"] = double(f.duration_ns) * 1e-9;
  if (f.master_parallel_ns) {
    j["master_parallel_s"] = double(f.master_parallel_ns) * 1e-9;
    j["master_serial_s"] = double(f.duration_ns - f.master_parallel_ns) * 1e-9;
  }
  if (f.busy.known) {
    j["cpus_online"] = h.cpus_online();
    j["cpus_allowed"] = h.cpus_allowed();
    j["steal_percent"] = double(h.steal_permille()) / 10.0;
    j["load_avg_end"] = double(h.load_avg_milli()) / 1000.0;
    j["run_delay_s"] = double(f.busy.run_delay_ns) * 1e-9;
    j["involuntary_switches"] = f.busy.involuntary;
    j["busy_machine"] = f.busy.busy;
    j["waits_up_to_preemption_s"] = double(f.busy.preemption_bound_ns) * 1e-9;
  }
  if (!h.omp_runtime_version().empty()) j["omp_runtime_version"] = h.omp_runtime_version();
  j["omp_settings"] = std::vector<std::string>(h.omp_setting().begin(), h.omp_setting().end());
  j["idle_workers_s"] = double(f.idle.idle_ns) * 1e-9;
  j["idle_blamed_s"] = double(f.idle.blamed_ns) * 1e-9;
  j["clock"] = f.clock;
  j["rate_hz"] = h.rate_hz();
  if (!h.clock_choice().empty()) j["clock_choice"] = h.clock_choice();
  j["samples"] = m.total_samples;
  j["sampled_s"] = double(m.total_weight_ns) * 1e-9;
  j["threads"] = p.threads.size();
  j["dropped_samples"] = f.dropped;
  j["truncated_samples"] = f.truncated;
  if (p.trailer.threads_before_start())
    j["threads_before_start"] = p.trailer.threads_before_start();
  if (p.trailer.member_counts_lost()) j["member_counts_lost"] = p.trailer.member_counts_lost();
  if (f.unmeasured_waits) j["unmeasured_waits"] = f.unmeasured_waits;
  if (f.waits_dropped) j["waits_dropped"] = f.waits_dropped;
  if (p.header.counter_event_size()) {
    const CounterFacts counters = counter_facts(p);
    j["counters"] = counter_json(p, counters);
    if (!counters.derived.empty()) j["derived_metrics"] = derived_json(p, counters);
    if (counters.threads_missing) j["counter_threads_missing"] = counters.threads_missing;
  }
  j["mpi_rank"] = h.mpi_rank();
  if (!h.wall_clock().empty()) {  // format 1.12
    j["wall_clock"] = h.wall_clock();
    j["wall_clock_drift_s"] = double(h.wall_clock_drift_ns()) * 1e-9;
    if (!h.wall_clock_note().empty()) j["wall_clock_note"] = h.wall_clock_note();
  }
  j["view"] = f.view;
  if (m.filtered) {
    j["filter"] = filter.describe();
    j["kept_samples"] = m.kept_samples;
    j["kept_s"] = double(m.kept_weight_ns) * 1e-9;
  }
  return j;
}

nlohmann::json header_json(const Model& m, const FilterOptions& filter) {
  return header_json(m, header_facts(m), filter);
}

}  // namespace omprof::viewer
