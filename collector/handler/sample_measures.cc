#include "collector/handler/sample_measures.h"

#include <atomic>

#include "proto/state_codes.h"

namespace omprof::handler {

namespace {

// Bit s for state s; states at or past kMpiFirst: bit kStateBits - 1.
constexpr uint32_t kStateBits = format::kMpiFirst + 1;
using Bits = std::atomic<uint64_t>[(kStateBits + 63) / 64];
Bits g_repeats;
Bits g_takes_none;
// Until the run says how it measures OpenMP waits: MPI calls only (a program without OpenMP).
std::atomic<bool> g_known_while_open{true};

uint32_t bit_of(uint32_t state) {
  return state >= format::kMpiFirst ? kStateBits - 1 : state;
}

void set_bit(Bits& bits, uint32_t state, bool on) {
  const uint32_t bit = bit_of(state);
  const uint64_t mask = uint64_t(1) << (bit % 64);
  if (on)
    bits[bit / 64].fetch_or(mask, std::memory_order_relaxed);
  else
    bits[bit / 64].fetch_and(~mask, std::memory_order_relaxed);
}

bool bit(const Bits& bits, uint32_t state) {
  const uint32_t b = bit_of(state);
  return (bits[b / 64].load(std::memory_order_relaxed) >> (b % 64)) & 1;
}

}  // namespace

void set_repeats_measured(uint32_t state, bool repeats) {
  set_bit(g_repeats, state, repeats);
}

bool sample_repeats_measured(uint32_t state) {
  return bit(g_repeats, state);
}

void set_takes_no_off_cpu(uint32_t state, bool none) {
  set_bit(g_takes_none, state, none);
}

SampleTime sample_time(uint32_t state) {
  if (bit(g_repeats, state)) return SampleTime::kRepeatsMeasured;
  return bit(g_takes_none, state) ? SampleTime::kOwnOffCpuKnown : SampleTime::kTakesOffCpu;
}

void set_measured_known_while_open(bool known) {
  g_known_while_open.store(known, std::memory_order_relaxed);
}

MeasuredKnown measured_known() {
  return g_known_while_open.load(std::memory_order_relaxed) ? MeasuredKnown::kWhileItRuns
                                                            : MeasuredKnown::kAtItsEnd;
}

}  // namespace omprof::handler
