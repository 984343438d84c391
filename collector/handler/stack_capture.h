// Capturing call stacks with libunwind: in the signal handler (the interrupted context) and from
// ordinary code (OpenMP fork callbacks). All of it is async-signal-safe. The ordinary-context
// functions run in Section::kUnwinding (reentrancy.h): the caller takes the samples deferred
// meanwhile (signal_handler.h, take_deferred_samples). Frames are instruction addresses, leaf
// first; caller frames are return address - 1 so that each lies inside its call instruction.
#pragma once

#include <cstdint>

namespace omprof::handler {

struct CaptureResult {
  uint32_t depth = 0;
  bool truncated = false;      // more than `max` frames: the root side was cut
  bool unwind_failed = false;  // only the interrupted pc could be recorded
};

// Async-signal-safe. With `use_trace_cache`, libunwind's fast unw_backtrace, whose per-thread
// trace cache (256 KB, filled entry by entry, unmapped at thread exit: about 1 ms) is created on
// the thread's first call; without, a step loop from the signal frame (about 0.5 us a frame,
// no per-thread set-up), for threads too short-lived to repay the cache. Both give the same
// frames. `scratch` must hold max + kSignalSlack pointers.
constexpr uint32_t kSignalSlack = 32;
CaptureResult capture_signal_stack(const void* ucontext, void** scratch, uint64_t* frames,
                                   uint32_t max, bool use_trace_cache);

// Async-signal-safe, using almost no stack: only the interrupted pc (unwind_failed set).
CaptureResult capture_signal_pc(const void* ucontext, uint64_t* frames);

// Ordinary context. Drops `skip` innermost frames (the caller's own) beyond this function.
// `scratch` must hold max + skip + 1 pointers.
CaptureResult capture_current_stack(void** scratch, uint64_t* frames, uint32_t max, uint32_t skip);

// Ordinary context, slow (a libunwind step loop): like capture_current_stack, and also the
// stack address holding each kept frame's return address (slots[i]: frames[i] + 1 is stored
// there). A later call from the same stack position can be recognised by reading those slots
// instead of unwinding. Returns slots_valid = false if a slot did not hold its return address.
// With `cut_frame` (an OMPT exit frame: the frame address of the runtime function that called
// the task's code), only the frames called from there on are kept: frame i iff its CFA, the
// stack pointer of its caller, is at or below `cut_frame` (docs: NOTES, "cut rules").
struct SlotCaptureResult : CaptureResult {
  bool slots_valid = false;
};
SlotCaptureResult capture_current_stack_slots(uint64_t* frames, uint64_t* slots, uint32_t max,
                                              uint32_t skip, uint64_t cut_frame = 0);

// One-time, non-signal-safe libunwind set-up for the process: call once, outside any handler,
// before the first sample.
void warm_up_process();

}  // namespace omprof::handler
