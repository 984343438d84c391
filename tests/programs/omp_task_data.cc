// What a task's body receives must not change under omprof, which hands libgomp its own block in
// front of the program's (gomp/gomp_wrappers.cc, GOMP_task): firstprivate C++ objects (copied
// by the compiler's copy function), over-aligned data, a block too large to be wrapped, shared
// variables, dependences, detached, if(0) and nested tasks. Prints a checksum per case and "ok" if
// every task saw what it was given.
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// Counts its copies, so that a task that got its copy from a bitwise move instead of the copy
// constructor is seen.
struct Tracked {
  std::string text;
  std::vector<int> values;
  const Tracked* self;
  Tracked(std::string t, std::vector<int> v)
      : text(std::move(t)), values(std::move(v)), self(this) {}
  Tracked(const Tracked& o) : text(o.text), values(o.values), self(this) {}
  bool intact() const { return self == this; }
};

struct alignas(64) Aligned {
  double x[8];
};

struct Large {
  char bytes[16384];
};

int failures = 0;

void check(bool ok, const char* what) {
  if (ok) return;
#pragma omp atomic
  ++failures;
  std::printf("FAILED %s\n", what);
}

long checksum(const std::string& s) {
  long sum = 0;
  for (char c : s) sum = sum * 31 + c;
  return sum;
}

}  // namespace

int main() {
  long objects = 0, aligned = 0, large = 0, deps = 0, nested = 0, detached = 0, undeferred = 0;
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < 200; ++i) {
      Tracked t("task " + std::to_string(i), std::vector<int>(size_t(i % 7 + 1), i));
      Aligned a;
      for (int k = 0; k < 8; ++k) a.x[k] = i + k;
      Large big;
      for (size_t k = 0; k < sizeof big.bytes; ++k) big.bytes[k] = char((i + k) & 127);
#pragma omp task firstprivate(t, i) shared(objects)
      {
        check(t.intact() && t.values.size() == size_t(i % 7 + 1) && t.values[0] == i, "object");
#pragma omp atomic
        objects += checksum(t.text) + long(t.values.size());
      }
#pragma omp task firstprivate(a, i) shared(aligned)
      {
        check(reinterpret_cast<uintptr_t>(&a) % 64 == 0 && a.x[7] == i + 7, "aligned");
#pragma omp atomic
        aligned += long(a.x[0] + a.x[7]);
      }
#pragma omp task firstprivate(big, i) shared(large)
      {
        long sum = 0;
        for (size_t k = 0; k < sizeof big.bytes; ++k) sum += big.bytes[k];
        check(big.bytes[100] == char((i + 100) & 127), "large");
#pragma omp atomic
        large += sum;
      }
      long stage = 0;
#pragma omp task shared(stage) depend(out : stage)
      stage = i;
#pragma omp task shared(stage, deps) depend(in : stage) firstprivate(i)
      {
        check(stage == i, "depend");
#pragma omp atomic
        deps += stage;
      }
#pragma omp task firstprivate(i) shared(nested)
      {
#pragma omp task firstprivate(i) shared(nested)
          {
#pragma omp atomic
              nested += i;
    }
#pragma omp taskwait
  }
  // A detached task: libgomp writes the event's handle into the first word of the program's
  // block (omprof's header, had it been wrapped).
  omp_event_handle_t event;
#pragma omp task detach(event) firstprivate(i) shared(detached)
  {
#pragma omp atomic
    detached += i;
    omp_fulfill_event(event);
  }
#pragma omp task if (0) firstprivate(t) shared(undeferred)
  {
    check(t.intact(), "undeferred");
    undeferred += checksum(t.text);
  }
#pragma omp taskwait
}
}
std::printf(
    "objects=%ld aligned=%ld large=%ld deps=%ld nested=%ld detached=%ld undeferred=%ld %s\n",
    objects, aligned, large, deps, nested, detached, undeferred, failures == 0 ? "ok" : "WRONG");
return failures == 0 ? 0 : 1;
}
