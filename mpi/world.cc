// MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort (C bindings; the Fortran ones are in
// fortran_calls.cc), and what omprof does at these points: take the job's facts once MPI is up,
// and write the profile before MPI_Abort ends the job.
#include "mpi/world.h"

#include <dlfcn.h>
#include <mpi.h>
#include <time.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "mpi/measured_call.h"

#define OMPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace omprof::mpi {

// What the report's header says of MPI_T events (an MPI 4.0 interface: Open MPI 4.1 does not
// have it; Debian's MPICH 4.0 has it and defines no events). Looked up by name, as the mpi.h
// of an MPI 3 library does not declare it.
static const char* mpi_t_events_note() {
  using GetNum = int (*)(int*);
  const auto get_num = reinterpret_cast<GetNum>(dlsym(RTLD_DEFAULT, "PMPI_T_event_get_num"));
  if (!get_num)
    return "the MPI library has no MPI_T events interface (MPI 4.0): no MPI_T events counted";
  int provided = 0, events = 0;
  if (PMPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
    return "the MPI library's MPI_T interface did not start: no MPI_T events counted";
  const int rc = get_num(&events);
  PMPI_T_finalize();
  if (rc == MPI_SUCCESS && events == 0)
    return "the MPI library's MPI_T interface defines no events: none counted";
  return "the MPI library defines MPI_T events; omprof does not count them yet";
}

void after_init() {
  int initialized = 0;
  PMPI_Initialized(&initialized);
  if (!initialized) return;
  int rank = -1, size = -1, level = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Query_thread(&level);
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  PMPI_Get_library_version(library, &length);
  omprof_internal_mpi_initialized(rank, size, level, library, mpi_t_events_note());
}

namespace {

// omprof's own communicator for the summary, so that its messages never meet the program's.
MPI_Comm g_comm = MPI_COMM_NULL;
constexpr int kTag = 0x0e9a;
void (*g_combine)(const void*, void*, uint64_t) = nullptr;

int send_bytes(int dest, const void* data, uint64_t bytes) {
  if (bytes > uint64_t(INT_MAX)) return MPI_ERR_COUNT;
  return PMPI_Send(data, int(bytes), MPI_BYTE, dest, kTag, g_comm);
}

int probe_bytes(int source, uint64_t* bytes) {
  MPI_Status status;
  int rc = PMPI_Probe(source, kTag, g_comm, &status);
  int count = 0;
  if (rc == MPI_SUCCESS) rc = PMPI_Get_count(&status, MPI_BYTE, &count);
  *bytes = uint64_t(count);
  return rc;
}

int recv_bytes(int source, void* data, uint64_t bytes) {
  if (bytes > uint64_t(INT_MAX)) return MPI_ERR_COUNT;
  return PMPI_Recv(data, int(bytes), MPI_BYTE, source, kTag, g_comm, MPI_STATUS_IGNORE);
}

int bcast_bytes(void* data, uint64_t bytes) {
  if (bytes > uint64_t(INT_MAX)) return MPI_ERR_COUNT;
  return PMPI_Bcast(data, int(bytes), MPI_BYTE, 0, g_comm);
}

void combine_op(void* in, void* inout, int* len, MPI_Datatype*) {
  g_combine(in, inout, uint64_t(*len));
}

int reduce_records(const void* in, void* out, uint64_t count, uint64_t record_bytes,
                   void (*combine)(const void*, void*, uint64_t)) {
  if (count > uint64_t(INT_MAX) || record_bytes > uint64_t(INT_MAX)) return MPI_ERR_COUNT;
  g_combine = combine;
  MPI_Datatype record;
  int rc = PMPI_Type_contiguous(int(record_bytes), MPI_BYTE, &record);
  if (rc != MPI_SUCCESS) return rc;
  PMPI_Type_commit(&record);
  MPI_Op op;
  rc = PMPI_Op_create(combine_op, 1, &op);
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Reduce(in, out, int(count), record, op, 0, g_comm);
    PMPI_Op_free(&op);
  }
  PMPI_Type_free(&record);
  return rc;
}

// Seconds to wait for every rank at the summary's first collective (OMPROF_MPI_SUMMARY_TIMEOUT,
// default 300): a rank not run under omprof never arrives, and the program must still finish.
double summary_timeout_s() {
  const char* v = std::getenv("OMPROF_MPI_SUMMARY_TIMEOUT");
  const double s = v ? std::atof(v) : 300;
  return s > 0 ? s : 300;
}

bool every_rank_arrives() {
  MPI_Request request;
  if (PMPI_Ibarrier(MPI_COMM_WORLD, &request) != MPI_SUCCESS) return false;
  const double deadline = PMPI_Wtime() + summary_timeout_s();
  for (;;) {
    int done = 0;
    if (PMPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (done) return true;
    if (PMPI_Wtime() > deadline) return false;  // the request is left behind: nothing to cancel
    const timespec pause{0, 1000000};
    nanosleep(&pause, nullptr);
  }
}

omprof_mpi_transport open_transport() {
  PMPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  PMPI_Comm_set_errhandler(g_comm, MPI_ERRORS_RETURN);
  omprof_mpi_transport t{};
  PMPI_Comm_rank(g_comm, &t.rank);
  PMPI_Comm_size(g_comm, &t.size);
  t.send = send_bytes;
  t.probe = probe_bytes;
  t.recv = recv_bytes;
  t.bcast = bcast_bytes;
  t.reduce = reduce_records;
  return t;
}

bool mpi_running() {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  return initialized && !finalized;
}

}  // namespace

void before_finalize() {
  omprof_internal_mpi_finalizing();
  static bool done = false;
  if (done || !mpi_running()) return;
  done = true;
  const char* setting = std::getenv("OMPROF_MPI_SUMMARY");
  if (setting && std::strcmp(setting, "0") == 0) {
    omprof_internal_mpi_summary_missing("turned off (OMPROF_MPI_SUMMARY=0)");
    return;
  }
  if (!every_rank_arrives()) {
    omprof_internal_mpi_summary_missing(
        "not every rank reached MPI_Finalize within OMPROF_MPI_SUMMARY_TIMEOUT seconds "
        "(were all ranks run under omprof?)");
    return;
  }
  omprof_mpi_transport t = open_transport();
  omprof_internal_mpi_summarize(&t);
  PMPI_Comm_free(&g_comm);
}

void before_abort(int errorcode) {
  omprof_internal_mpi_aborting(errorcode);
}

}  // namespace omprof::mpi

OMPROF_EXPORT int MPI_Init(int* argc, char*** argv) {
  omprof::mpi::MeasuredCall measured(omprof::format::kMpi_Init, __builtin_return_address(0));
  const int rc = PMPI_Init(argc, argv);
  measured.done();
  omprof::mpi::after_init();
  return rc;
}

OMPROF_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  omprof::mpi::MeasuredCall measured(omprof::format::kMpi_Init_thread, __builtin_return_address(0));
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  measured.done();
  omprof::mpi::after_init();
  return rc;
}

OMPROF_EXPORT int MPI_Finalize() {
  // The summary's time is time in MPI_Finalize, outside the POP window.
  omprof::mpi::MeasuredCall measured(omprof::format::kMpi_Finalize, __builtin_return_address(0));
  omprof::mpi::before_finalize();
  const int rc = PMPI_Finalize();
  measured.done();
  return rc;
}

// The public collective summary (include/omprof/omprof.h); interposes on the no-op library.
OMPROF_EXPORT int omprof_write_mpi_summary(const char* path, int strict, int csv) {
  if (!omprof::mpi::mpi_running()) return 1;  // OMPROF_ERR_NOT_INIT
  omprof_mpi_transport t = omprof::mpi::open_transport();
  const int status = omprof_internal_mpi_write_summary(&t, path, strict, csv);
  PMPI_Comm_free(&omprof::mpi::g_comm);
  return status;
}

OMPROF_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  omprof::mpi::before_abort(errorcode);
  return PMPI_Abort(comm, errorcode);
}
