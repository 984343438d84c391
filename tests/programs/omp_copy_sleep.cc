// Sleep in the program's own code inside task creation: a firstprivate object whose copy
// constructor sleeps 5 ms, copied when each of 40 tasks is created (inside GOMP_task on libgomp,
// through the compiler's copy function). That sleep is the program's, not the runtime's task
// overhead. Prints "copy_sleep_s S" (the time the copies slept, measured around them) and "ok".
#include <omp.h>
#include <time.h>

#include <cstdio>

namespace {

double copy_sleep_s = 0;  // written by the creating thread only

double now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

struct SlowCopy {
  int value = 0;
  explicit SlowCopy(int v) : value(v) {}
  SlowCopy(const SlowCopy& o) : value(o.value) {
    const double t0 = now_s();
    const timespec five_ms{0, 5000000};
    nanosleep(&five_ms, nullptr);
    copy_sleep_s += now_s() - t0;
  }
};

}  // namespace

int main() {
  long sum = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int i = 0; i < 40; ++i) {
      SlowCopy s(i);
#pragma omp task firstprivate(s) shared(sum)
      {
#pragma omp atomic
        sum += s.value;
      }
    }
  }
  std::printf("copy_sleep_s %.6f %s\n", copy_sleep_s, sum == 780 ? "ok" : "WRONG");
  return sum == 780 ? 0 : 1;
}
