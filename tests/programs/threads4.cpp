// Four pthreads with known work: thread t burns (t + 1) * 80 ms of its own CPU time.
#include <pthread.h>
#include <time.h>

#include <cstdio>

#include "spin.h"

extern "C" __attribute__((noinline)) void* worker(void* arg) {
  const long t = reinterpret_cast<long>(arg);
  spin_for(CLOCK_THREAD_CPUTIME_ID, 0.080 * double(t + 1));
  return nullptr;
}

int main() {
  pthread_t th[4];
  for (long t = 0; t < 4; ++t) pthread_create(&th[t], nullptr, worker, reinterpret_cast<void*>(t));
  for (auto& h : th) pthread_join(h, nullptr);
  std::printf("threads4 done\n");
  return 0;
}
