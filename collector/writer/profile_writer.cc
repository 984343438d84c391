#include "collector/writer/profile_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "collector/journal_writer.h"
#include "collector/modules.h"
#include "collector/ompt/exact_waits.h"
#include "collector/openmp/fork_records.h"
#include "collector/openmp/runtime_status.h"
#include "collector/phase_timer.h"
#include "collector/region_context.h"
#include "collector/run_report.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "collector/writer/call_targets.h"
#include "collector/writer/journal_entries.h"
#include "collector/writer/records.h"
#include "collector/writer/symbols.h"
#include "proto/coverage.h"
#include "proto/fields.h"
#include "proto/format.h"
#include "proto/manifest.h"
#include "proto/options.h"
#include "proto/text.h"

namespace omprof {

namespace {

using writer::StackTable;
using writer::StringTable;
using writer::ThreadRows;

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v == '1';
}

// Every thread's samples and exact waits, with their stacks interned.
std::vector<ThreadRows> collect_threads(StackTable& stacks) {
  std::vector<ThreadRows> threads;
  for (uint32_t i = 0; i < thread_count(); ++i) {
    const ThreadState* ts = thread_at(i);
    if (!ts) continue;
    ThreadRows rows{ts, {}, {}};
    for (uint32_t k = 0; k < ts->table.used(); ++k) {
      const SampleEntry& e = ts->table.used_entry(k);
      rows.samples.push_back({stacks.intern(ts->table.frames_of(e), e.depth, e.flags), &e});
    }
    for (uint32_t k = 0; k < ts->waits.used(); ++k) {
      const SampleEntry& e = ts->waits.used_entry(k);
      rows.waits.push_back({stacks.intern(ts->waits.frames_of(e), e.depth, 0), &e});
    }
    threads.push_back(std::move(rows));
  }
  return threads;
}

// Every address the stacks and fork records use.
std::vector<uint64_t> addresses_of(const StackTable& stacks,
                                   const std::vector<openmp::ForkSnapshot>& forks) {
  std::vector<uint64_t> addresses;
  for (size_t i = 0; i < stacks.size(); ++i) {
    const std::vector<uint64_t> frames = stacks.frames(i);
    addresses.insert(addresses.end(), frames.begin(), frames.end());
  }
  for (const auto& f : forks)
    if (f.codeptr) addresses.push_back(f.codeptr);
  return addresses;
}

bool write_file(const std::string& path, int fd, const wire::RecordStream& head,
                const wire::RecordStream& body, const wire::RecordStream& tail,
                std::string& error) {
  bool ok = write_all(fd, std::string(format::kMagic)) && write_all(fd, head.bytes()) &&
            write_all(fd, body.bytes()) && write_all(fd, tail.bytes());
  if (::close(fd) != 0) ok = false;
  if (!ok) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    ::unlink(path.c_str());  // never an empty or partial profile
  }
  return ok;
}

// Something the user must know about the profile: to `omprof run` (which prints it), or to
// stderr when the collector was preloaded by hand.
void report_warning(const std::string& message) {
  if (runtime().config.manifest.empty())
    std::fprintf(stderr, "omprof: warning: %s\n", message.c_str());
  else
    append_manifest(manifest::warning_line(message));
}

// The launcher's summary line, and the coverage warning if samples went missing.
void report_written(const std::string& path, const std::vector<ThreadRows>& threads) {
  uint64_t samples = 0, dropped = 0, truncated = 0;
  format::Coverage coverage;
  coverage.period_ns = runtime().config.period_ns;
  for (const auto& t : threads) {
    for (const auto& [id, e] : t.samples) samples += e->count;
    dropped += t.ts->table.dropped_samples();
    truncated += t.ts->truncated_samples;
    coverage.add_thread(t.ts->armed_clock_ns, t.ts->strata_sampled, t.ts->sampling_lost);
  }
  append_manifest(manifest::ok_line(path, samples, threads.size(), dropped, truncated));
  if (coverage.incomplete()) report_warning(coverage.describe());
}

// The profile could not be written: what is left to recover it from, to the user.
void report_not_written(std::string error) {
  const uint64_t lost = journal::pages_not_durable();
  if (!journal::journal_recoverable()) {
    journal::remove_journal();  // an unreadable journal is no profile either
    error += "; there is no journal to recover it from";
  } else if (lost) {
    error += "; the journal left for recovery lacks " + std::to_string(lost) +
             " pages the filesystem could not hold";
  }
  std::fprintf(stderr, "omprof: profile not written: %s\n", error.c_str());
  append_manifest(manifest::error_line(error));
}

// What the user must know about a profile that was written.
void report_run_warnings(const writer::HeaderFacts& facts) {
  if (!facts.wall_clock.note.empty()) report_warning(facts.wall_clock.note);
  if (const uint64_t lost = journal::pages_not_durable())
    report_warning(std::to_string(lost) +
                   " pages of the journal could not be kept on disk (no space, or the file was "
                   "truncated); they were kept in memory and the profile is whole, but a crash "
                   "would have lost them");
  if (const uint64_t refused = refused_region_calls())
    report_warning(std::to_string(refused) +
                   " region calls were refused (OMPROF_ERR_REENTERED): a signal handler made "
                   "them while omprof's own code ran on the same thread");
}

}  // namespace

void report_states_lost() {
  const std::string error =
      "another process truncated the journal '" + journal::journal_path() +
      "' during the run: the samples and waits it held were lost, and omprof stopped measuring "
      "then (the program ran on)";
  std::fprintf(stderr, "omprof: profile not written: %s\n", error.c_str());
  append_manifest(manifest::error_line(error));
  journal::remove_journal();
}

int create_profile_file(const std::string& dir, const std::string& stem, std::string& path,
                        std::string& error) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    path = dir + "/" + stem + (attempt ? "." + std::to_string(attempt) : "") + ".omprof";
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST) {
      error = "cannot create '" + path + "': " + std::strerror(errno);
      return -1;
    }
  }
  error = "too many profiles named '" + dir + "/" + stem + ".*.omprof'";
  return -1;
}

// What the profile's header says of the run.
static writer::HeaderFacts header_facts(uint64_t duration_ns, ProcessEnding ending,
                                        const std::vector<unwind::Module>& modules,
                                        const RegionData& regions, bool symbolized_in_process) {
  writer::HeaderFacts facts;
  facts.program = modules.empty() ? "" : modules.front().path;
  facts.argv = writer::command_line();
  facts.duration_ns = duration_ns;
  writer::add_mpi_facts(facts);
  facts.symbolize_offline = !symbolized_in_process;
  facts.region_window_start_ns = regions.window_start_ns;
  facts.region_cpu_exact = region_cpu_measured();
  facts.omp = openmp::runtime_status(modules);
  facts.ending_kind = ending.kind;
  facts.exit_status = ending.exit_status;
  facts.wall_clock = check_wall_clock(duration_ns);
  facts.machine = machine_load_at_end();
  return facts;
}

void write_profile(uint64_t duration_ns, ProcessEnding ending) {
  // The program may have used up every other descriptor; what follows opens files one at a time.
  release_reserved_descriptor();
  PhaseTimer phase;
  const std::vector<unwind::Module> modules = recorded_modules();
  const std::vector<openmp::ForkSnapshot> forks = openmp::fork_snapshots();
  StackTable stacks;
  const std::vector<ThreadRows> threads = collect_threads(stacks);
  std::vector<uint64_t> fork_stack_ids;
  for (const auto& f : forks)
    fork_stack_ids.push_back(stacks.intern(f.frames.data(), uint32_t(f.frames.size()),
                                           f.truncated ? kStackTruncated : 0));
  phase.done("collecting samples");

  // By default the viewer symbolizes from the files on disk (verified by build-id), so the run
  // pays only for the vdso, which has no file; `omprof run --symbolize` does it all here, for
  // binaries that will not exist later.
  const bool in_process = env_flag(options::env::kSymbolize);
  StringTable strings;
  const writer::SymbolRecords symbols = writer::symbolize(
      addresses_of(stacks, forks), modules, in_process, env_flag("OMPROF_SYSTEM_LINES"),
      writer::runtime_call_targets(stacks, modules), strings);
  phase.done("symbolizing addresses");

  namespace R = format::fields::Record;
  wire::RecordStream body;
  writer::add_mapping_records(body, modules, strings);
  for (const auto& f : symbols.functions) body.add(R::kFunction, f);
  for (const auto& l : symbols.locations) body.add(R::kLocation, l);
  writer::add_stack_records(body, stacks, symbols.location_ids);
  for (const auto& t : threads) writer::add_thread_records(body, t);
  writer::add_fork_records(body, forks, fork_stack_ids, symbols.location_ids);
  const RegionData regions = region_data(int64_t(duration_ns));
  writer::add_region_records(body, regions, strings);

  const writer::HeaderFacts facts = header_facts(duration_ns, ending, modules, regions, in_process);
  wire::RecordStream head, tail;
  head.add(R::kHeader, writer::header_record(facts));
  writer::add_string_records(head, strings);
  tail.add(R::kTrailer, writer::trailer_record(head.count() + body.count()));

  const std::string stem = writer::file_stem(facts.program, facts.mpi_rank);
  std::string path, error;
  const int fd = create_profile_file(runtime().config.output_dir, stem, path, error);
  const bool ok = fd >= 0 && write_file(path, fd, head, body, tail, error);
  phase.done("encoding and writing");
  if (!ok) {
    report_not_written(error);
    return;  // the journal stays: `omprof run` recovers the profile from it
  }
  journal::remove_journal();
  report_written(path, threads);
  report_run_warnings(facts);
}

}  // namespace omprof
