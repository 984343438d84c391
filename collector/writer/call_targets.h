// The runtime entry points that the program's call sites called. libomp tail-calls from its
// entry points into internal functions that have no symbol on Debian (__kmpc_omp_task_alloc
// jumps to __kmp_task_alloc), so a sample's outermost runtime frame is often unnamed, while the
// call instruction in the program's frame still names the entry point: its target, through the
// PLT or the GOT, bound by the time a sample saw the call. Ordinary context, at shutdown, in
// the profiled process (the viewer has neither the process's GOT nor its mappings).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/writer/stack_table.h"
#include "unwind/module.h"

namespace omprof::writer {

// For every caller frame (return address - 1, as stacks hold them) whose callee frame is in a
// runtime module while the caller is not: the name of the function its call instruction calls,
// when it is decodable and an exported symbol starts exactly there.
std::unordered_map<uint64_t, std::string> runtime_call_targets(
    const StackTable& stacks, const std::vector<unwind::Module>& modules);

// The exported function the call instruction at `caller_frame` (a return address - 1) calls,
// read from this process's memory; "" when not decodable or not a symbol's start.
std::string function_called_at(uint64_t caller_frame);

// Decodes the call instruction that ends at `return_address` (`call rel32`, `call
// *disp32(%rip)`) and follows a PLT stub (`[endbr64] [bnd] jmp *disp32(%rip)`) to the address
// it jumps to. `read(addr, out, n)` copies n bytes of the process's memory, false if unreadable.
// Returns 0 when the code is none of these.
template <typename Read>
uint64_t call_target(uint64_t return_address, Read read) {
  unsigned char c[6];
  if (!read(return_address - 6, c, 6)) return 0;
  auto rel32 = [](const unsigned char* p) {
    return int64_t(int32_t(uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
                           uint32_t(p[3]) << 24));
  };
  auto slot_value = [&](uint64_t slot) -> uint64_t {
    uint64_t v = 0;
    return read(slot, reinterpret_cast<unsigned char*>(&v), 8) ? v : 0;
  };
  if (c[0] == 0xff && c[1] == 0x15)  // call *disp32(%rip): -fno-plt
    return slot_value(return_address + rel32(c + 2));
  if (c[1] != 0xe8) return 0;
  const uint64_t target = return_address + rel32(c + 2);
  unsigned char s[11];
  if (!read(target, s, sizeof s)) return target;
  size_t i = 0;
  if (s[0] == 0xf3 && s[1] == 0x0f && s[2] == 0x1e && s[3] == 0xfa) i = 4;  // endbr64
  if (s[i] == 0xf2) ++i;                                                    // bnd
  if (s[i] == 0xff && s[i + 1] == 0x25)  // a PLT stub: jmp *disp32(%rip)
    return slot_value(target + i + 6 + rel32(s + i + 2));
  return target;  // a direct call
}

}  // namespace omprof::writer
