// Scope guards: ownership of exactly one activation, stale guards, early exits.
#include <cstdio>
#include <stdexcept>

#include "omprof/omprof.hpp"

namespace {
int early_exit(bool leave) {
  OMPROF_FUNCTION();
  if (leave) return 1;
  return 0;
}
void throws() {
  OMPROF_REGION("throws");
  throw std::runtime_error("x");
}
}  // namespace

int main() {
  {
    omprof::Region g{"guarded"};
    std::printf("active %d\n", int(g.active()));
    std::printf("stop %d\n", g.stop());
    std::printf("stop_again %d\n", g.stop());
  }
  {
    omprof::Region g{"stale"};
    std::printf("manual_end %d\n", omprof_region_end("stale"));
    std::printf("stale_stop %d\n", g.stop());  // its activation is gone: mismatch
  }
  {
    omprof::Region outer{"outer"};
    omprof::Region inner{"inner"};
    std::printf("outer_first %d\n", outer.stop());  // not innermost: mismatch, nothing changes
    std::printf("inner %d\n", inner.stop());
    std::printf("outer %d\n", outer.stop());
  }
  {
    omprof::Region bad{""};
    std::printf("bad_status %d active %d\n", bad.status(), int(bad.active()));
  }
  for (int i = 0; i < 5; ++i) early_exit(i % 2);
  try {
    throws();
  } catch (const std::exception&) {
    std::printf("caught\n");
  }
  std::printf("csv %d\n", omprof_write_summary_csv("-"));
  return 0;
}
