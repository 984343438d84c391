#include "proto/options.h"

#include <signal.h>

#include <cerrno>
#include <cstdlib>

namespace omprof::options {

namespace {

bool parse_u64(const char* s, uint64_t lo, uint64_t hi, uint64_t& out) {
  if (!s || !*s || s[0] == '-' || s[0] == '+' || s[0] == ' ') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

bool parse_number(const Number& opt, const char* text, uint64_t& out, std::string& error) {
  if (parse_u64(text, opt.min, opt.max, out)) return true;
  error = std::string(opt.env) + " must be an integer from " + std::to_string(opt.min) + " to " +
          std::to_string(opt.max) + ", got '" + (text ? text : "") + "'";
  return false;
}

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

}  // namespace omprof::options
