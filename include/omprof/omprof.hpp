// omprof explicit regions: C++ scope guards over the C API (omprof/omprof.h).
//
//   void solve() {
//     OMPROF_FUNCTION();                 // region named after the function
//     { omprof::Region r{"assemble"};    // ends at the end of the block
//       ...
//     }
//   }
//
// A guard owns exactly one activation (a token) and ends only that activation. If that
// activation is no longer the innermost open region on this thread (ended by hand, repaired
// away, reset), stop() returns OMPROF_ERR_MISMATCH and changes nothing; the destructor does the
// same and reports it through the diagnostic channel.
#ifndef OMPROF_OMPROF_HPP
#define OMPROF_OMPROF_HPP

#include <cstdint>

#include "omprof/omprof.h"

namespace omprof {

class Region {
 public:
  explicit Region(const char* name) noexcept { status_ = omprof_region_begin_token(name, &token_); }
  ~Region() { stop(); }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  Region(Region&&) = delete;
  Region& operator=(Region&&) = delete;

  // Ends the activation now; once it succeeded, later calls (and the destructor) do nothing.
  // A failed stop changes nothing and the guard keeps its activation (stop again once the
  // regions opened inside it are closed).
  int stop() noexcept {
    if (!active()) return status_;
    const int st = omprof_region_end_token(token_);
    if (st == OMPROF_SUCCESS) token_ = 0;
    return st;
  }
  // Whether begin succeeded and stop() has not been called.
  bool active() const noexcept { return status_ == OMPROF_SUCCESS && token_ != 0; }
  // Status of the begin.
  int status() const noexcept { return status_; }

 private:
  uint64_t token_ = 0;
  int status_ = OMPROF_SUCCESS;
};

}  // namespace omprof

#define OMPROF_CONCAT_INNER(a, b) a##b
#define OMPROF_CONCAT(a, b) OMPROF_CONCAT_INNER(a, b)
#define OMPROF_REGION(name)                                        \
  ::omprof::Region OMPROF_CONCAT(omprof_region_guard_, __LINE__) { \
    name                                                           \
  }
#define OMPROF_FUNCTION() OMPROF_REGION(__func__)

#endif  // OMPROF_OMPROF_HPP
