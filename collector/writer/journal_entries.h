// What the collector itself puts in the journal (journal_writer.h): the run's header at start,
// and each module as it is found and as it goes. The OpenMP tool journals its fork records and
// runtime status, the region API its names and nodes. Ordinary context.
#pragma once

#include <string>
#include <vector>

#include "collector/writer/records.h"
#include "unwind/module.h"

namespace omprof::writer {

// The process's arguments as it was started (/proc/self/cmdline, read at the first call: at
// start-up), its MPI rank from the launcher's environment (-1), and the name profiles and
// journals share: <program>.<pid>[.rank<RRRR>].
const std::vector<std::string>& command_line();
int mpi_rank_from_env();  // -1 when not launched as an MPI rank
int mpi_size_from_env();
std::string file_stem(const std::string& program, int mpi_rank);
// Rank, size and the MPI library's facts: from MPI once initialized, else from the environment.
void add_mpi_facts(HeaderFacts& facts);

// Opens the journal, named like the profile will be (<program>.<pid>[.rank<R>]).
bool open_profile_journal(std::string& error);
// The run's header (program, arguments, clock, rate, ...), once the modules are known.
void journal_header();
// The MPI facts (add_mpi_facts) as they are now: at MPI_Init's return and MPI_Finalize's call,
// so that a live reader and a recovered profile have the rank's POP window and MPI library.
void journal_mpi_facts();
void journal_module(const unwind::Module& m);
void journal_unloaded(const unwind::Module& m);

}  // namespace omprof::writer
