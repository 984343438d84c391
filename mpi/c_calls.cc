// The C bindings of the MPI calls omprof measures (proto/mpi_calls.h): each calls its PMPI_
// twin with the thread marked inside MPI. Prototypes are Open MPI's (mpi.h), so the compiler
// checks every one. Init, Finalize and Abort are in world.cc.
#include <mpi.h>

#include "mpi/measured_call.h"

#define OMPROF_EXPORT extern "C" __attribute__((visibility("default")))

// A wrapper for MPI_<name>(params) forwarding (args) to PMPI_<name>.
#define OMPROF_WRAP_C(name, params, args)                                                         \
  OMPROF_EXPORT int MPI_##name params {                                                           \
    omprof::mpi::MeasuredCall measured(omprof::format::kMpi_##name, __builtin_return_address(0)); \
    const int rc = PMPI_##name args;                                                              \
    measured.done();                                                                              \
    return rc;                                                                                    \
  }

OMPROF_WRAP_C(Send, (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
              (b, n, t, d, tag, c))
OMPROF_WRAP_C(Ssend, (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
              (b, n, t, d, tag, c))
OMPROF_WRAP_C(Bsend, (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
              (b, n, t, d, tag, c))
OMPROF_WRAP_C(Rsend, (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
              (b, n, t, d, tag, c))
OMPROF_WRAP_C(Recv, (void* b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status* st),
              (b, n, t, s, tag, c, st))
OMPROF_WRAP_C(Sendrecv,
              (const void* sb, int sn, MPI_Datatype st, int d, int stag, void* rb, int rn,
               MPI_Datatype rt, int s, int rtag, MPI_Comm c, MPI_Status* status),
              (sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status))
OMPROF_WRAP_C(Sendrecv_replace,
              (void* b, int n, MPI_Datatype t, int d, int stag, int s, int rtag, MPI_Comm c,
               MPI_Status* status),
              (b, n, t, d, stag, s, rtag, c, status))
OMPROF_WRAP_C(Wait, (MPI_Request * r, MPI_Status* s), (r, s))
OMPROF_WRAP_C(Waitall, (int n, MPI_Request r[], MPI_Status s[]), (n, r, s))
OMPROF_WRAP_C(Waitany, (int n, MPI_Request r[], int* i, MPI_Status* s), (n, r, i, s))
OMPROF_WRAP_C(Waitsome, (int n, MPI_Request r[], int* out, int idx[], MPI_Status s[]),
              (n, r, out, idx, s))
OMPROF_WRAP_C(Test, (MPI_Request * r, int* f, MPI_Status* s), (r, f, s))
OMPROF_WRAP_C(Testall, (int n, MPI_Request r[], int* f, MPI_Status s[]), (n, r, f, s))
OMPROF_WRAP_C(Testany, (int n, MPI_Request r[], int* i, int* f, MPI_Status* s), (n, r, i, f, s))
OMPROF_WRAP_C(Testsome, (int n, MPI_Request r[], int* out, int idx[], MPI_Status s[]),
              (n, r, out, idx, s))
OMPROF_WRAP_C(Probe, (int s, int tag, MPI_Comm c, MPI_Status* st), (s, tag, c, st))
OMPROF_WRAP_C(Iprobe, (int s, int tag, MPI_Comm c, int* f, MPI_Status* st), (s, tag, c, f, st))
OMPROF_WRAP_C(Barrier, (MPI_Comm c), (c))
OMPROF_WRAP_C(Bcast, (void* b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c))
OMPROF_WRAP_C(Reduce,
              (const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),
              (s, r, n, t, op, root, c))
OMPROF_WRAP_C(Allreduce, (const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
              (s, r, n, t, op, c))
OMPROF_WRAP_C(Gather,
              (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
               MPI_Comm c),
              (s, sn, st, r, rn, rt, root, c))
OMPROF_WRAP_C(Gatherv,
              (const void* s, int sn, MPI_Datatype st, void* r, const int rn[], const int displs[],
               MPI_Datatype rt, int root, MPI_Comm c),
              (s, sn, st, r, rn, displs, rt, root, c))
OMPROF_WRAP_C(Scatter,
              (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
               MPI_Comm c),
              (s, sn, st, r, rn, rt, root, c))
OMPROF_WRAP_C(Scatterv,
              (const void* s, const int sn[], const int displs[], MPI_Datatype st, void* r, int rn,
               MPI_Datatype rt, int root, MPI_Comm c),
              (s, sn, displs, st, r, rn, rt, root, c))
OMPROF_WRAP_C(Allgather,
              (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
               MPI_Comm c),
              (s, sn, st, r, rn, rt, c))
OMPROF_WRAP_C(Allgatherv,
              (const void* s, int sn, MPI_Datatype st, void* r, const int rn[], const int displs[],
               MPI_Datatype rt, MPI_Comm c),
              (s, sn, st, r, rn, displs, rt, c))
OMPROF_WRAP_C(Alltoall,
              (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
               MPI_Comm c),
              (s, sn, st, r, rn, rt, c))
OMPROF_WRAP_C(Alltoallv,
              (const void* s, const int sn[], const int sd[], MPI_Datatype st, void* r,
               const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
              (s, sn, sd, st, r, rn, rd, rt, c))
OMPROF_WRAP_C(Alltoallw,
              (const void* s, const int sn[], const int sd[], const MPI_Datatype st[], void* r,
               const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c),
              (s, sn, sd, st, r, rn, rd, rt, c))
OMPROF_WRAP_C(Reduce_scatter,
              (const void* s, void* r, const int rn[], MPI_Datatype t, MPI_Op op, MPI_Comm c),
              (s, r, rn, t, op, c))
OMPROF_WRAP_C(Reduce_scatter_block,
              (const void* s, void* r, int rn, MPI_Datatype t, MPI_Op op, MPI_Comm c),
              (s, r, rn, t, op, c))
OMPROF_WRAP_C(Scan, (const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
              (s, r, n, t, op, c))
OMPROF_WRAP_C(Exscan, (const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
              (s, r, n, t, op, c))
