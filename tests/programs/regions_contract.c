/* The explicit-region contract through the C API, as a program sees it under omprof: prints
 * one "check value" line per check; the integration test compares them. */
#include <stdio.h>
#include <string.h>

#include "omprof/omprof.h"

#define CHECK(name, expr) printf("%s %d\n", name, (int)(expr))

int main(void) {
  omprof_region_id id = 0;
  CHECK("begin_outer", omprof_region_begin("outer"));
  CHECK("lookup", omprof_region_lookup("inner   ", &id));
  CHECK("id_nonzero", id != 0);
  for (int i = 0; i < 3; ++i) {
    CHECK("begin_id", omprof_region_begin_id(id));
    CHECK("end_id", omprof_region_end_id(id));
  }
  CHECK("bad_id", omprof_region_begin_id(12345));
  CHECK("invalid_empty", omprof_region_begin(""));
  CHECK("invalid_lead", omprof_region_begin(" x"));
  CHECK("invalid_ctrl", omprof_region_begin("a\nb"));
  CHECK("invalid_null", omprof_region_begin(NULL));
  CHECK("begin_a", omprof_region_begin("a"));
  CHECK("strict_mismatch", omprof_region_end("outer"));
  CHECK("mismatch_again_same_site", omprof_region_end("outer"));
  CHECK("not_open", omprof_region_end("never"));
  CHECK("reset_active", omprof_region_reset());
  CHECK("mode_bad", omprof_set_mismatch_mode(7));
  CHECK("mode_repair", omprof_set_mismatch_mode(OMPROF_MISMATCH_REPAIR));
  CHECK("repaired_end", omprof_region_end("outer"));
  CHECK("end_continuation", omprof_region_end("a"));
  CHECK("empty_end", omprof_region_end("a"));
  CHECK("reset", omprof_region_reset());
  CHECK("mode_strict", omprof_set_mismatch_mode(OMPROF_MISMATCH_STRICT));
  CHECK("begin_after_reset", omprof_region_begin("after"));
  CHECK("end_after_reset", omprof_region_end("after"));
  CHECK("summary_unwritable", omprof_write_summary("/nonexistent-dir/x.txt"));
  omprof_set_diagnostics(0);
  CHECK("silenced_mismatch", omprof_region_end("nothing"));
  CHECK("token_null", omprof_region_begin_token("guarded", NULL));
  CHECK("summary_empty_path", omprof_write_summary(""));
  printf("status_name %s\n", omprof_status_name(OMPROF_ERR_MISMATCH));
  printf("status_name_99 %s\n", strstr(omprof_status_name(99), "an omprof status"));
  return 0;
}
