// Four pthreads with known work: thread t burns (t + 1) * 80 ms of its own CPU time.
#include <pthread.h>
#include <time.h>

#include <cstdio>

namespace {
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
volatile double sink;
}  // namespace

extern "C" __attribute__((noinline)) void* worker(void* arg) {
  const long t = reinterpret_cast<long>(arg);
  const double end = cpu_seconds() + 0.080 * double(t + 1);
  double x = 1;
  while (cpu_seconds() < end)
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
  return nullptr;
}

int main() {
  pthread_t th[4];
  for (long t = 0; t < 4; ++t) pthread_create(&th[t], nullptr, worker, reinterpret_cast<void*>(t));
  for (auto& h : th) pthread_join(h, nullptr);
  std::printf("threads4 done\n");
  return 0;
}
