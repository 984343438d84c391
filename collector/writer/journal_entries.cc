#include "collector/writer/journal_entries.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "collector/journal_writer.h"
#include "collector/modules.h"
#include "collector/openmp/runtime_status.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "collector/writer/mpi_facts.h"
#include "collector/writer/records.h"
#include "proto/fields.h"
#include "proto/text.h"
#include "unwind/module_kind.h"

namespace omprof::writer {

namespace {

namespace fields = format::fields;

std::string read_file(const char* path) {
  std::string s;
  FILE* f = std::fopen(path, "rb");
  if (!f) return s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

std::string executable_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

}  // namespace

const std::vector<std::string>& command_line() {
  // Read once, at start-up (journal_header, in omprof's constructor): a program may overwrite
  // its arguments in place (BOTS marks the options it parsed), and /proc/self/cmdline shows
  // those bytes by the end.
  static const std::vector<std::string> argv = [] {
    std::vector<std::string> args;
    const std::string raw = read_file("/proc/self/cmdline");
    size_t start = 0;
    for (size_t i = 0; i < raw.size(); ++i)
      if (raw[i] == 0) {
        args.push_back(raw.substr(start, i - start));
        start = i + 1;
      }
    return args;
  }();
  return argv;
}

int mpi_rank_from_env() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return -1;
}

int mpi_size_from_env() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return -1;
}

std::string file_stem(const std::string& program, int mpi_rank) {
  std::string rank;
  if (mpi_rank >= 0) {
    // Zero-padded, so that a directory of rank files lists in rank order.
    char digits[16];
    std::snprintf(digits, sizeof digits, ".rank%04d", mpi_rank);
    rank = digits;
  }
  // A file name has at most 255 bytes (NAME_MAX): a program name of 250 lost its profile to
  // ENAMETOOLONG. The stem keeps 160 bytes of it (whole UTF-8 characters), leaving room for the
  // pid, the rank, a counter and the longest suffix.
  std::string name = text::base_name(program.empty() ? "program" : program);
  constexpr size_t kMaxName = 160;
  if (name.size() > kMaxName) {
    size_t cut = kMaxName;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
    name.resize(cut);
  }
  return name + "." + std::to_string(getpid()) + rank;
}

void add_mpi_facts(HeaderFacts& facts) {
  const MpiFacts& m = mpi_facts();
  facts.mpi_rank = m.initialized ? m.rank : mpi_rank_from_env();
  facts.mpi_size = m.initialized ? m.size : mpi_size_from_env();
  facts.mpi_thread_level = m.thread_level;
  facts.mpi_library = m.library;
  facts.mpi_calls_exact = m.calls_measured;
  facts.mpi_note = m.note;
  facts.mpi_init_end_ns = m.init_end_ns;
  facts.mpi_finalize_start_ns = m.finalize_start_ns;
  facts.mpi_cpu_exact = m.cpu_exact && m.calls_measured;
  if (m.aborted)
    facts.mpi_note += std::string(facts.mpi_note.empty() ? "" : "; ") +
                      "the program called MPI_Abort: written before the job ended";
}

bool open_profile_journal(std::string& error) {
  const journal::Shape shape{runtime().config.max_threads, thread_block_bytes()};
  return journal::open_journal(runtime().config.output_dir,
                               file_stem(executable_path(), mpi_rank_from_env()), shape, error);
}

void journal_header() {
  const std::vector<unwind::Module> modules = recorded_modules();
  HeaderFacts facts;
  facts.program = modules.empty() ? "" : modules.front().path;
  facts.argv = command_line();
  facts.mpi_rank = mpi_rank_from_env();
  facts.mpi_size = mpi_size_from_env();
  facts.omp = openmp::runtime_status(modules);
  journal::append_entry(fields::JournalEntry::kStart, header_record(facts));
  openmp::journal_runtime_status(modules);
  openmp::apply_timeline_measurement();
}

void journal_mpi_facts() {
  HeaderFacts facts;
  add_mpi_facts(facts);
  wire::Encoder e;
  add_mpi_header_fields(e, facts);
  journal::append_entry(fields::JournalEntry::kMpi, e);
}

void journal_module(const unwind::Module& m) {
  namespace J = fields::JournalModule;
  namespace G = fields::JournalSegment;
  wire::Encoder e;
  e.str(J::kPath, m.path);
  e.str_nonempty(J::kBuildId, m.build_id);
  e.u64(J::kLoadBias, m.load_bias);
  for (const auto& seg : m.segments) {
    wire::Encoder g;
    g.u64(G::kStart, seg.start);
    g.u64(G::kLimit, seg.limit);
    g.u64(G::kFileOffset, seg.file_offset);
    e.message(J::kSegment, g);
  }
  e.boolean(J::kIsVdso, m.is_vdso);
  e.boolean(J::kIsOmpRuntime, unwind::is_omp_runtime_module(m.path));
  journal::append_entry(fields::JournalEntry::kModule, e);
}

void journal_unloaded(const unwind::Module& m) {
  journal::append_entry_u64(fields::JournalEntry::kUnloaded, m.start());
}

}  // namespace omprof::writer
