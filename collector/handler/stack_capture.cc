#include "collector/handler/stack_capture.h"

// Local unwinding only (the _UL* entry points of libunwind.so).
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <ucontext.h>

#include "collector/handler/reentrancy.h"

namespace omprof::handler {

namespace {

CaptureResult copy_frames(void** raw, int n, int first, uint64_t* frames, uint32_t max) {
  CaptureResult r;
  for (int i = first; i < n; ++i) {
    if (r.depth == max) {
      r.truncated = true;
      break;
    }
    uint64_t ip = reinterpret_cast<uintptr_t>(raw[i]);
    if (ip == 0) break;
    frames[r.depth++] = (i == first) ? ip : ip - 1;
  }
  return r;
}

CaptureResult only_pc(uint64_t pc, uint64_t* frames) {
  CaptureResult r;
  frames[0] = pc;
  r.depth = 1;
  r.unwind_failed = true;
  return r;
}

// unw_step from the interrupted context itself: the same return addresses as unw_backtrace.
CaptureResult step_signal_stack(const void* ucontext, uint64_t pc, uint64_t* frames, uint32_t max) {
  unw_cursor_t cursor;
  auto* uc = static_cast<unw_context_t*>(const_cast<void*>(ucontext));
  if (unw_init_local2(&cursor, uc, UNW_INIT_SIGNAL_FRAME) != 0) return only_pc(pc, frames);
  CaptureResult r;
  do {
    if (r.depth == max) {
      r.truncated = true;
      break;
    }
    unw_word_t ip = 0;
    unw_get_reg(&cursor, UNW_REG_IP, &ip);
    if (ip == 0) break;
    frames[r.depth] = r.depth == 0 ? uint64_t(ip) : uint64_t(ip) - 1;
    ++r.depth;
  } while (unw_step(&cursor) > 0);
  if (r.depth == 0) return only_pc(pc, frames);
  return r;
}

}  // namespace

CaptureResult capture_signal_stack(const void* ucontext, void** scratch, uint64_t* frames,
                                   uint32_t max, bool use_trace_cache) {
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
  const uint64_t pc = uint64_t(uc->uc_mcontext.gregs[REG_RIP]);
  if (!use_trace_cache) return step_signal_stack(ucontext, pc, frames, max);
  // The trace starts in this handler; the interrupted frame follows the signal trampoline.
  // Find it by its pc rather than by counting handler frames, which depends on inlining.
  int n = unw_backtrace(scratch, int(max + kSignalSlack));
  for (int i = 0; i < n && i < int(kSignalSlack); ++i) {
    if (reinterpret_cast<uintptr_t>(scratch[i]) == pc)
      return copy_frames(scratch, n, i, frames, max);
  }
  return only_pc(pc, frames);
}

CaptureResult capture_signal_pc(const void* ucontext, uint64_t* frames) {
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
  return only_pc(uint64_t(uc->uc_mcontext.gregs[REG_RIP]), frames);
}

CaptureResult capture_current_stack(void** scratch, uint64_t* frames, uint32_t max, uint32_t skip) {
  int n = 0;
  {
    SectionScope unwinding(Section::kUnwinding);
    n = unw_backtrace(scratch, int(max + skip + 1));
  }
  // scratch[0] is this function; the first frame kept is a return address too.
  CaptureResult r = copy_frames(scratch, n, 0, frames, max + skip + 1);
  uint32_t drop = skip + 1 < r.depth ? skip + 1 : r.depth;
  for (uint32_t i = drop; i < r.depth; ++i) frames[i - drop] = frames[i];
  r.depth -= drop;
  if (r.depth > max) {
    r.depth = max;
    r.truncated = true;
  }
  // Every kept frame came from index >= 1, so all are return addresses adjusted by -1.
  return r;
}

SlotCaptureResult capture_current_stack_slots(uint64_t* frames, uint64_t* slots, uint32_t max,
                                              uint32_t skip, uint64_t cut_frame) {
  SlotCaptureResult r;
  unw_context_t uc;
  unw_cursor_t cursor;
  SectionScope unwinding(Section::kUnwinding);
  if (unw_getcontext(&uc) != 0 || unw_init_local(&cursor, &uc) != 0) return r;
  r.slots_valid = true;
  // Frame 0 is this function; frame k >= 1 was called into from its return address, which the
  // call pushed just below frame k's stack pointer (the callee's CFA).
  for (uint32_t k = 0;; ++k) {
    if (k > skip) {
      if (cut_frame) {
        unw_word_t sp = 0;
        unw_get_reg(&cursor, UNW_REG_SP, &sp);
        if (uint64_t(sp) > cut_frame) {  // the previous frame's CFA: it is the runtime's
          if (r.depth > 0) --r.depth;
          break;
        }
      }
      if (r.depth == max) {
        r.truncated = true;
        break;
      }
      unw_word_t ip = 0, sp = 0;
      unw_get_reg(&cursor, UNW_REG_IP, &ip);
      unw_get_reg(&cursor, UNW_REG_SP, &sp);
      if (ip == 0) break;
      const uint64_t slot = uint64_t(sp) - 8;
      if (*reinterpret_cast<const uint64_t*>(slot) != uint64_t(ip)) r.slots_valid = false;
      frames[r.depth] = uint64_t(ip) - 1;
      slots[r.depth] = slot;
      ++r.depth;
    }
    if (unw_step(&cursor) <= 0) break;
  }
  return r;
}

void warm_up_process() {
  // unw_init_local's first call does the set-up (about 0.2 ms here). unw_backtrace would also
  // create this thread's trace cache, 256 KB touched page by page (about 0.9 ms a process on the
  // 2-vCPU VM); the main thread makes it when it needs it, as other threads do (signal_handler.cc).
  SectionScope unwinding(Section::kUnwinding);
  unw_context_t context;
  unw_cursor_t cursor;
  unw_getcontext(&context);
  unw_init_local(&cursor, &context);
}

}  // namespace omprof::handler
