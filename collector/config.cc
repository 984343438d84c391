#include "collector/config.h"

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace omprof {

namespace {

bool parse_u64(const char* s, uint64_t lo, uint64_t hi, uint64_t& out) {
  if (!s || !*s) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || *end || s[0] == '-' || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

int parse_signal(const std::string& in) {
  std::string s = in;
  if (s.rfind("SIG", 0) == 0) s = s.substr(3);
  if (s.empty()) return -1;
  uint64_t n = 0;
  if (parse_u64(s.c_str(), 1, uint64_t(SIGRTMAX), n)) return int(n);
  if (s == "PROF") return SIGPROF;
  if (s == "VTALRM") return SIGVTALRM;
  if (s == "ALRM") return SIGALRM;
  if (s == "USR1") return SIGUSR1;
  if (s == "USR2") return SIGUSR2;
  if (s.rfind("RTMIN", 0) == 0) {
    if (s.size() == 5) return SIGRTMIN;
    if (s[5] == '+' && parse_u64(s.c_str() + 6, 0, uint64_t(SIGRTMAX - SIGRTMIN), n))
      return SIGRTMIN + int(n);
  }
  return -1;
}

bool usable_profiling_signal(int s) {
  return s > 0 && s <= SIGRTMAX && s != SIGKILL && s != SIGSTOP && s != SIGSEGV && s != SIGBUS &&
         s != SIGILL && s != SIGFPE && s != SIGCHLD;
}

bool parse_config(Config& cfg, std::string& error) {
  auto get = [](const char* name) -> const char* {
    const char* v = std::getenv(name);
    return (v && *v) ? v : nullptr;
  };
  uint64_t n = 0;
  if (const char* v = get("OMPROF_RATE")) {
    if (!parse_u64(v, 1, 10000, n)) {
      error = std::string("OMPROF_RATE must be an integer from 1 to 10000, got '") + v + "'";
      return false;
    }
    cfg.rate_hz = uint32_t(n);
  }
  cfg.period_ns = 1000000000ULL / cfg.rate_hz;
  if (const char* v = get("OMPROF_CLOCK")) {
    if (!std::strcmp(v, "cpu")) {
      cfg.clock = ClockKind::kCpu;
    } else if (!std::strcmp(v, "wall")) {
      cfg.clock = ClockKind::kWall;
    } else if (!std::strcmp(v, "task")) {
      cfg.clock = ClockKind::kTask;
    } else {
      error = std::string("OMPROF_CLOCK must be 'cpu', 'wall' or 'task', got '") + v + "'";
      return false;
    }
  }
  if (const char* v = get("OMPROF_SIGNAL")) {
    int s = parse_signal(v);
    if (!usable_profiling_signal(s)) {
      error = std::string("OMPROF_SIGNAL is not a usable signal: '") + v + "'";
      return false;
    }
    cfg.signo = s;
  }
  if (const char* v = get("OMPROF_MAX_DEPTH")) {
    if (!parse_u64(v, 4, 4096, n)) {
      error = std::string("OMPROF_MAX_DEPTH must be an integer from 4 to 4096, got '") + v + "'";
      return false;
    }
    cfg.max_depth = uint32_t(n);
  }
  if (const char* v = get("OMPROF_MAX_CONTEXTS")) {
    if (!parse_u64(v, 16, 1u << 24, n)) {
      error = std::string("OMPROF_MAX_CONTEXTS must be from 16 to 16777216, got '") + v + "'";
      return false;
    }
    uint32_t pow2 = 16;
    while (pow2 < n) pow2 <<= 1;
    cfg.max_contexts = pow2;
  }
  if (const char* v = get("OMPROF_MAX_THREADS")) {
    if (!parse_u64(v, 1, 1u << 20, n)) {
      error = std::string("OMPROF_MAX_THREADS must be from 1 to 1048576, got '") + v + "'";
      return false;
    }
    cfg.max_threads = uint32_t(n);
  }
  cfg.frame_pool = cfg.max_contexts * 32;
  if (const char* v = get("OMPROF_OUTPUT")) cfg.output_dir = v;
  if (const char* v = get("OMPROF_MANIFEST")) cfg.manifest = v;
  cfg.enabled = true;
  return true;
}

}  // namespace omprof
