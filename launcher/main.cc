// The omprof command. It is the launcher: `omprof run` starts the program with the collector
// preloaded (launcher.cc), and links nothing but the ELF reader, so that it starts fast (its
// start is part of every profiled run's fixed cost). The offline commands (report, export) are
// the viewer's: omprof execs omprof-viewer, installed next to it, with the same arguments.
#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>

#include "launcher/counter_check.h"
#include "launcher/launcher.h"
#include "launcher/viewer_exec.h"
#include "proto/cli_parse.h"
#include "proto/options.h"

using namespace omprof;

// A whole-number option of `omprof run` from the launcher/collector contract (proto/options.h):
// anything but digits ("abc", "-5", "1e3") is one message naming the range, never an overflow.
template <typename T>
static void add_number(CLI::App* cmd, const options::Number& opt, const std::string& names,
                       T& value) {
  const std::string range = std::to_string(opt.min) + " to " + std::to_string(opt.max);
  const CLI::Validator whole_number(
      [range](std::string& s) {
        const bool ok = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
        return ok ? std::string() : "'" + s + "' is not a whole number from " + range;
      },
      "INT");
  cmd->add_option(names, value, std::string(opt.help) + " (" + range + ")")
      ->check(whole_number)
      ->check(CLI::Range(opt.min, opt.max))
      ->capture_default_str();
}

// --clock: a time clock, or event:NAME:PERIOD (checked further by the launcher).
static std::string clock_choice(std::string& s) {
  for (const char* c : options::kClockChoices)
    if (s == c) return "";
  if (s.rfind("event:", 0) == 0) return "";
  return s + " is none of cpu, wall, task, event:NAME:PERIOD";
}

static CLI::App* add_run_command(CLI::App& app, launcher::RunOptions& run) {
  CLI::App* cmd =
      app.add_subcommand("run", "Profile a program: omprof run [options] [--] PROGRAM [ARGS...]");
  cmd->add_option("-o,--output", run.output_dir, "Directory for the profile files")
      ->capture_default_str();
  add_number(cmd, options::kRate, std::string("-r,") + options::kRate.flag, run.rate_hz);
  cmd->add_option("--clock", run.clock,
                  "task (thread CPU time from a perf_event task-clock: the default where "
                  "permitted), cpu (thread CPU time, on kernel ticks: the fallback) or wall; "
                  "event:NAME:PERIOD also samples a counter event every PERIOD events (as "
                  "--counters NAME:PERIOD); see docs/usage.md")
      ->check(CLI::Validator(clock_choice, "{cpu,wall,task,event:NAME:PERIOD}"));
  cmd->add_option("--signal", run.signal, "Profiling signal (SIGPROF, SIGRTMIN+N, ...)")
      ->check(CLI::Validator(
          [](std::string& s) {
            return options::usable_profiling_signal(options::parse_signal(s))
                       ? std::string()
                       : "not a usable signal: " + s;
          },
          "SIGNAL"))
      ->capture_default_str();
  add_number(cmd, options::kMaxDepth, options::kMaxDepth.flag, run.max_depth);
  add_number(cmd, options::kInterval, options::kInterval.flag, run.interval_ms);
  add_number(cmd, options::kEventMin, options::kEventMin.flag, run.event_min_ms);
  add_number(cmd, options::kMaxContexts, options::kMaxContexts.flag, run.max_contexts);
  cmd->add_flag("--children", run.children, "Also profile processes the program starts");
  cmd->add_flag("--symbolize", run.symbolize,
                "Resolve symbols at the end of the run instead of in the viewer (for binaries "
                "that will not exist when the profile is read)");
  cmd->add_option("--omp-runtime", run.omp_runtime,
                  "native (auto): the program runs on the OpenMP runtime it links (libgomp through "
                  "omprof's wrappers of its entry points); libomp: run a libgomp program on LLVM "
                  "libomp, for OMPT (a different runtime, with different timings)")
      ->check(CLI::IsMember({"auto", "native", "libomp"}))
      ->capture_default_str();
  cmd->add_option("--mpi", run.mpi,
                  "auto: measure time in MPI if the program loads Open MPI; on: always (a "
                  "script that starts an MPI program); off: never")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  cmd->add_flag("--region-cpu", run.region_cpu,
                "Explicit regions also measure thread CPU time exactly (four system calls per "
                "begin/end pair); without it, a region's CPU time is sampled");
  cmd->add_option("--counters", run.counters,
                  "Count events per thread and attribute them to call paths: kernel events "
                  "(page-faults, minor-faults, major-faults, context-switches, cpu-migrations, "
                  "task-clock), hardware events (cycles, instructions, cache-misses, "
                  "branch-misses, ...), libpfm4 names (pmu::event) and PAPI presets (PAPI_*), "
                  "comma-separated, at most 4; NAME:PERIOD also samples one of them every "
                  "PERIOD events (one extra read per sample)");
  cmd->add_flag("--region-counters", run.region_counters,
                "Explicit regions also read the --counters events at begin and end, exactly "
                "(two system calls each); without it, a region's events are its samples'");
  cmd->add_flag("--mpi-cpu", run.mpi_cpu,
                "Also measure each MPI call's thread CPU time exactly (two system calls per "
                "call); without it, CPU time in MPI is sampled");
  cmd->prefix_command();
  return cmd;
}

int main(int argc, char** argv) {
  // Offline commands go to the viewer before anything is parsed here (their --help included).
  if (argc > 1 && launcher::is_viewer_command(argv[1])) return launcher::exec_viewer(argc, argv);
  if (argc > 1 && argv[1][0] != '-' && std::strcmp(argv[1], "run") != 0) {
    std::cerr << "omprof: unknown command '" << argv[1]
              << "' (run, report, export, view, diff, scaling, advise; omprof --help)\n";
    return 2;
  }

  CLI::App app{"omprof: a sampling profiler for OpenMP and MPI+OpenMP programs"};
  app.set_version_flag("--version", std::string("omprof ") + OMPROF_VERSION);
  app.require_subcommand(1);
  launcher::RunOptions run;
  CLI::App* run_cmd = add_run_command(app, run);
  // Listed in the help; never parsed here (see above).
  for (const auto& [name, help] : launcher::viewer_commands()) app.add_subcommand(name, help);

  // `omprof run [options] -- PROGRAM ARGS`: everything after the first "--" is the command.
  std::vector<std::string> after_dashes;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      after_dashes.assign(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  if (const int status = cli::parse(app, argc, argv); status >= 0) return status;
  if (!run_cmd->parsed()) return 2;  // unreachable: one subcommand is required
  run.command = run_cmd->remaining();
  // The program starts at the first word that is not an option: a dash there is a typo.
  if (!run.command.empty() && run.command[0].size() > 1 && run.command[0][0] == '-') {
    std::cerr << "omprof: unknown option '" << run.command[0]
              << "' for 'omprof run' (omprof run --help)\n";
    return 2;
  }
  run.command.insert(run.command.end(), after_dashes.begin(), after_dashes.end());
  run.counters_given = run_cmd->count("--counters") > 0;
  if (run.clock.rfind("event:", 0) == 0 && !launcher::sample_event_as_counter(run)) return 2;
  return launcher::run_program(run, argv[0]);
}
