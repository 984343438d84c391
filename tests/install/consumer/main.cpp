#include <cstdio>
#include <omprof/omprof.hpp>

int main() {
  volatile double x = 1;
  {
    OMPROF_REGION("consumer_phase");
    for (long i = 0; i < 20000000; ++i) x = x * 1.0000001 + 1e-9;
  }
  std::printf("consumer %d\n", omprof_region_begin("late") == OMPROF_SUCCESS);
  omprof_region_end("late");
  return 0;
}
