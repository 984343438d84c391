// A process-wide flag that the collector's hot paths read (every clock read, OMPT callback and
// libgomp wrapper) and that is set once. Not std::atomic<bool>: the collector is built with
// _GLIBCXX_ASSERTIONS (collector/CMakeLists.txt), whose memory-order checks made GCC's link-time
// inliner keep std::atomic<bool>::load out of line, and with it the wall clock's now_ns (43 call
// sites) and current_thread. The builtins are what std::atomic compiles to. Async-signal-safe.
#pragma once

namespace omprof::handler {

class HotFlag {
 public:
  bool relaxed() const { return __atomic_load_n(&set_, __ATOMIC_RELAXED); }
  bool acquire() const { return __atomic_load_n(&set_, __ATOMIC_ACQUIRE); }
  void set() { __atomic_store_n(&set_, true, __ATOMIC_SEQ_CST); }

 private:
  bool set_ = false;
};

}  // namespace omprof::handler
