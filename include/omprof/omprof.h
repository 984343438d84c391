/* omprof explicit regions: the C API.
 *
 * Mark the phases you care about; under `omprof run` each region is timed exactly (wall and
 * thread CPU time, calls, self time, per thread) and every sample is attributed to the region
 * it fell in. Without `omprof run` every call is a no-op returning OMPROF_SUCCESS (the summary
 * writers return OMPROF_ERR_NOT_INIT and write nothing): see docs/regions.md.
 *
 * Every function returns a status code. A rejected call changes nothing. Unless silenced with
 * omprof_set_diagnostics(0), a failure also prints one line to stderr, once per kind of error
 * and call site. */
#ifndef OMPROF_OMPROF_H
#define OMPROF_OMPROF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes (the fTimer contract's codes and meanings). */
enum {
  OMPROF_SUCCESS = 0,             /* the call did what it says */
  OMPROF_ERR_NOT_INIT = 1,        /* omprof is not collecting (program not run under omprof) */
  OMPROF_ERR_NOT_IMPLEMENTED = 2, /* not available in this build */
  OMPROF_ERR_UNKNOWN = 3,         /* unknown or stale region id, call count exhausted, ... */
  OMPROF_ERR_ACTIVE = 4,          /* regions are open (omprof_region_reset) */
  OMPROF_ERR_MISMATCH = 5,        /* end does not match the innermost open region */
  OMPROF_ERR_MPI_INCON = 6,       /* ranks disagree on the region tree (MPI reductions) */
  OMPROF_ERR_IO = 7,              /* a summary file could not be written */
  OMPROF_ERR_INVALID_NAME = 8,    /* empty, leading blank, or control characters */
  OMPROF_ERR_REENTERED = 9        /* from a signal handler that interrupted omprof on this thread */
};

/* The names of the status codes above, in order (omprof_status_name returns them). */
#define OMPROF_STATUS_NAMES                                                                    \
  "OMPROF_SUCCESS", "OMPROF_ERR_NOT_INIT", "OMPROF_ERR_NOT_IMPLEMENTED", "OMPROF_ERR_UNKNOWN", \
      "OMPROF_ERR_ACTIVE", "OMPROF_ERR_MISMATCH", "OMPROF_ERR_MPI_INCON", "OMPROF_ERR_IO",     \
      "OMPROF_ERR_INVALID_NAME", "OMPROF_ERR_REENTERED"

/* Mismatch modes, for an end that does not match the innermost open region. */
enum {
  OMPROF_MISMATCH_STRICT = 0, /* default: OMPROF_ERR_MISMATCH, nothing changes */
  OMPROF_MISMATCH_WARN = 1,   /* one diagnostic, then repair */
  OMPROF_MISMATCH_REPAIR = 2  /* repair silently */
};

typedef int32_t omprof_region_id; /* from omprof_region_lookup; 0 is never a valid id */

/* Begin and end a region by name (trailing blanks are ignored). */
int omprof_region_begin(const char* name);
int omprof_region_end(const char* name);

/* For hot loops: look a name up once, then begin and end by id. */
int omprof_region_lookup(const char* name, omprof_region_id* id);
int omprof_region_begin_id(omprof_region_id id);
int omprof_region_end_id(omprof_region_id id);

/* Activation tokens: end exactly the activation a begin created (what scope guards use). */
int omprof_region_begin_token(const char* name, uint64_t* token);
int omprof_region_end_token(uint64_t token);

/* Zero all times and counts (region names and ids stay). OMPROF_ERR_ACTIVE if any region is
 * open on any thread. Call it from serial code. */
int omprof_region_reset(void);

int omprof_set_mismatch_mode(int mode);
int omprof_get_mismatch_mode(int* mode);

/* 1 (default): print diagnostics; 0: only return status codes. */
int omprof_set_diagnostics(int enabled);

/* Write the region summary now (open regions included, marked active). path NULL or "-" is
 * standard output. Call from serial code. */
int omprof_write_summary(const char* path);
int omprof_write_summary_csv(const char* path);

/* MPI programs under omprof (collective: every rank of MPI_COMM_WORLD calls it, from serial
 * code, between MPI_Init and MPI_Finalize): the regions reduced over ranks so far, as omprof
 * writes at MPI_Finalize (docs/usage.md), written by rank 0 to path (NULL or "-": standard
 * output), as text or (csv != 0) CSV. strict != 0: if the ranks' region trees differ, every
 * rank gets OMPROF_ERR_MPI_INCON and nothing is written; otherwise ranks that lack paths are
 * named. Every rank returns the same status. Without omprof's MPI wrappers: OMPROF_ERR_NOT_INIT. */
int omprof_write_mpi_summary(const char* path, int strict, int csv);

/* Name of a status code ("OMPROF_ERR_MISMATCH"). */
const char* omprof_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif /* OMPROF_OMPROF_H */
