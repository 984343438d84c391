// The concrete scopes containing an address (inlined calls and blocks, up to their function),
// for the symbolizer's inlined frames.
//
// libdw's dwarf_getscopes and dwarf_getscopes_die walk a compilation unit's tree from its root
// for every address: a unit of thousands of functions (LULESH's lulesh.cc) made each lookup
// scan them, and symbolizing a profile's addresses took most of `omprof report`'s and
// `omprof top`'s time. Here each unit's functions are indexed by address once, and an address's
// chain is the path down from its function.
#pragma once

#include <elfutils/libdw.h>

#include <unordered_map>
#include <vector>

namespace omprof::unwind {

class ScopeFinder {
 public:
  // The scopes at `pc` in compilation unit `cu`, innermost first, ending at the function
  // (DW_TAG_subprogram) that holds it; empty when no function holds it.
  std::vector<Dwarf_Die> scopes_at(Dwarf_Die* cu, Dwarf_Addr pc);

 private:
  struct Function {
    Dwarf_Addr lo = 0, hi = 0;  // one of its ranges, [lo, hi)
    Dwarf_Die die{};
  };
  // A unit's functions with code, by lo (built on first use; keyed by the unit's offset).
  const std::vector<Function>& functions_of(Dwarf_Die* cu);

  std::unordered_map<Dwarf_Off, std::vector<Function>> by_unit_;
};

}  // namespace omprof::unwind
