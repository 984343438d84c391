// Example OpenMP program for omprof: a 2-D heat-diffusion solver. Each sweep runs an
// OpenMP loop whose rows cost more towards the bottom of the grid (a "hot" region needs
// extra smoothing passes), so a static schedule leaves threads waiting at the barrier:
// the profile shows the serial set-up, the parallel sweep, and the imbalance wait. The phases
// are also marked as explicit regions (omprof/omprof.hpp), timed exactly under omprof.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <omprof/omprof.hpp>
#include <vector>

namespace {

constexpr int kN = 512;

void initialize(std::vector<double>& grid) {
  OMPROF_REGION("initialize");
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) grid[i * kN + j] = std::sin(0.01 * i) * std::cos(0.02 * j);
  // Serial set-up that is deliberately expensive, so it shows in the profile.
  double acc = 0;
  for (int rep = 0; rep < 40; ++rep)
    for (int k = 0; k < kN * kN; ++k) acc += std::sqrt(std::fabs(grid[k]) + rep);
  grid[0] += acc * 1e-30;
}

double smooth_row(const std::vector<double>& in, std::vector<double>& out, int i, int passes) {
  double change = 0;
  for (int p = 0; p < passes; ++p)
    for (int j = 1; j < kN - 1; ++j) {
      double v = 0.25 * (in[(i - 1) * kN + j] + in[(i + 1) * kN + j] + in[i * kN + j - 1] +
                         in[i * kN + j + 1]);
      change += std::fabs(v - out[i * kN + j]);
      out[i * kN + j] = v;
    }
  return change;
}

double sweep(const std::vector<double>& in, std::vector<double>& out) {
  double change = 0;
#pragma omp parallel reduction(+ : change)
  {
    // Opened on every thread of the team: nests under "solve", with per-thread statistics.
    OMPROF_REGION("sweep");
#pragma omp for schedule(static)
    for (int i = 1; i < kN - 1; ++i) {
      int passes = 1 + (3 * i) / kN;  // bottom rows cost up to 3x more
      change += smooth_row(in, out, i, passes);
    }
  }
  return change;
}

double solve(std::vector<double>& a, std::vector<double>& b, int steps) {
  OMPROF_REGION("solve");
  double change = 0;
  for (int s = 0; s < steps; ++s) {
    change = sweep(a, b);
    a.swap(b);
  }
  return change;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 1200;
  std::vector<double> a(kN * kN), b(kN * kN);
  initialize(a);
  b = a;
  double change = solve(a, b, steps);
  std::printf("heat: %d steps on %dx%d with %d threads, last change %.6e\n", steps, kN, kN,
              omp_get_max_threads(), change);
  return 0;
}
