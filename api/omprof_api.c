/* The library annotated programs link (libomprof_api.so). Every function is a no-op: when the
 * program runs under `omprof run`, the preloaded collector defines the same symbols and its
 * definitions come first in symbol lookup, so the calls reach the collector instead. Without
 * it, begin/end/lookup/reset/mode calls cost one call and return OMPROF_SUCCESS, and nothing is
 * measured or written. */
#include <stddef.h>

#include "omprof/omprof.h"

int omprof_region_begin(const char* name) {
  (void)name;
  return OMPROF_SUCCESS;
}
int omprof_region_end(const char* name) {
  (void)name;
  return OMPROF_SUCCESS;
}
int omprof_region_lookup(const char* name, omprof_region_id* id) {
  (void)name;
  if (id) *id = 1; /* any non-zero id: begin_id/end_id accept everything here */
  return OMPROF_SUCCESS;
}
int omprof_region_begin_id(omprof_region_id id) {
  (void)id;
  return OMPROF_SUCCESS;
}
int omprof_region_end_id(omprof_region_id id) {
  (void)id;
  return OMPROF_SUCCESS;
}
int omprof_region_begin_token(const char* name, uint64_t* token) {
  (void)name;
  if (token) *token = 1;
  return OMPROF_SUCCESS;
}
int omprof_region_end_token(uint64_t token) {
  (void)token;
  return OMPROF_SUCCESS;
}
int omprof_region_reset(void) {
  return OMPROF_SUCCESS;
}
int omprof_set_mismatch_mode(int mode) {
  (void)mode;
  return OMPROF_SUCCESS;
}
int omprof_get_mismatch_mode(int* mode) {
  if (mode) *mode = OMPROF_MISMATCH_STRICT;
  return OMPROF_SUCCESS;
}
int omprof_set_diagnostics(int enabled) {
  (void)enabled;
  return OMPROF_SUCCESS;
}
int omprof_write_summary(const char* path) {
  (void)path;
  return OMPROF_ERR_NOT_INIT;
}
int omprof_write_summary_csv(const char* path) {
  (void)path;
  return OMPROF_ERR_NOT_INIT;
}
int omprof_write_mpi_summary(const char* path, int strict, int csv) {
  (void)path;
  (void)strict;
  (void)csv;
  return OMPROF_ERR_NOT_INIT;
}

const char* omprof_status_name(int status) {
  static const char* const names[] = {OMPROF_STATUS_NAMES};
  return (status >= 0 && status < (int)(sizeof names / sizeof names[0])) ? names[status]
                                                                         : "not an omprof status";
}
