// Encoding each kind of record of proto/omprof.proto from the collector's state. Ordinary
// context, at shutdown, after sampling stopped.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collector/clocks/wall_clock_check.h"
#include "collector/machine_load.h"
#include "collector/openmp/fork_records.h"
#include "collector/openmp/runtime_status.h"
#include "collector/region_context.h"
#include "collector/thread_registry.h"
#include "collector/writer/stack_table.h"
#include "proto/wire.h"
#include "unwind/module.h"

namespace omprof::writer {

using LocationIds = std::unordered_map<uint64_t, uint64_t>;

// One thread's aggregated samples and exact waits, each with its stack id.
struct ThreadRows {
  const ThreadState* ts;
  std::vector<std::pair<uint64_t, const SampleEntry*>> samples;
  std::vector<std::pair<uint64_t, const SampleEntry*>> waits;
};

struct HeaderFacts {
  std::string program;
  std::vector<std::string> argv;
  uint64_t duration_ns = 0;
  int mpi_rank = -1, mpi_size = -1;
  int mpi_thread_level = -1;
  bool mpi_calls_exact = false, mpi_cpu_exact = false;
  uint64_t mpi_init_end_ns = 0, mpi_finalize_start_ns = 0;
  std::string mpi_library, mpi_note;
  bool symbolize_offline = true;
  int64_t region_window_start_ns = 0;
  bool region_cpu_exact = false;
  openmp::RuntimeStatus omp;
  WallClockCheck wall_clock;
  MachineLoad machine;
  uint32_t ending_kind = 0;  // Ending.Kind; 0: not written
  int exit_status = 0;
};
wire::Encoder header_record(const HeaderFacts& facts);
// The header's mpi_* fields: in the profile's header, and in the journal's MPI entry.
void add_mpi_header_fields(wire::Encoder& h, const HeaderFacts& facts);

void add_string_records(wire::RecordStream& out, const StringTable& strings);
void add_mapping_records(wire::RecordStream& out, const std::vector<unwind::Module>& modules,
                         StringTable& strings);
void add_stack_records(wire::RecordStream& out, const StackTable& stacks,
                       const LocationIds& location_ids);
void add_thread_records(wire::RecordStream& out, const ThreadRows& thread);
void add_fork_records(wire::RecordStream& out, const std::vector<openmp::ForkSnapshot>& forks,
                      const std::vector<uint64_t>& fork_stack_ids, const LocationIds& location_ids);
void add_region_records(wire::RecordStream& out, const RegionData& regions, StringTable& strings);
wire::Encoder trailer_record(uint64_t record_count);

}  // namespace omprof::writer
