#include "unwind/dwarf_scopes.h"

#include <dwarf.h>

#include <algorithm>

namespace omprof::unwind {

namespace {

// Functions with code below `parent`: in namespaces and classes (C++ definitions), and inside
// other functions (GCC nests an OpenMP body's outlined function, main._omp_fn.0, inside its
// parent function's DIE, whose ranges do not cover it).
template <typename Out>
void collect_functions(Dwarf_Die* parent, Out& out) {
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    switch (dwarf_tag(&child)) {
      case DW_TAG_subprogram: {
        Dwarf_Addr base = 0, lo = 0, hi = 0;
        ptrdiff_t it = 0;
        while ((it = dwarf_ranges(&child, it, &base, &lo, &hi)) > 0)
          if (hi > lo) out.push_back({lo, hi, child});
        collect_functions(&child, out);
        break;
      }
      case DW_TAG_namespace:
      case DW_TAG_class_type:
      case DW_TAG_structure_type:
      case DW_TAG_union_type:
      case DW_TAG_lexical_block:
        collect_functions(&child, out);
        break;
      default:
        break;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The child of `parent` that is a scope inside a function and holds `pc`, if any.
bool inner_scope(Dwarf_Die* parent, Dwarf_Addr pc, Dwarf_Die* found) {
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return false;
  do {
    const int tag = dwarf_tag(&child);
    if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block &&
        tag != DW_TAG_try_block && tag != DW_TAG_catch_block)
      continue;
    if (dwarf_haspc(&child, pc) == 1) {
      *found = child;
      return true;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

}  // namespace

const std::vector<ScopeFinder::Function>& ScopeFinder::functions_of(Dwarf_Die* cu) {
  const Dwarf_Off key = dwarf_dieoffset(cu);
  auto it = by_unit_.find(key);
  if (it != by_unit_.end()) return it->second;
  std::vector<Function> functions;
  collect_functions(cu, functions);
  std::sort(functions.begin(), functions.end(),
            [](const Function& a, const Function& b) { return a.lo < b.lo; });
  return by_unit_.emplace(key, std::move(functions)).first->second;
}

std::vector<Dwarf_Die> ScopeFinder::scopes_at(Dwarf_Die* cu, Dwarf_Addr pc) {
  const std::vector<Function>& functions = functions_of(cu);
  // The function holding `pc` with the smallest range (functions' ranges do not overlap but
  // for nesting), among those starting at or before it.
  auto it = std::upper_bound(functions.begin(), functions.end(), pc,
                             [](Dwarf_Addr a, const Function& f) { return a < f.lo; });
  const Function* holder = nullptr;
  for (int seen = 0; it != functions.begin() && seen < 64; ++seen) {
    --it;
    if (pc < it->hi && (!holder || it->hi - it->lo < holder->hi - holder->lo)) holder = &*it;
  }
  std::vector<Dwarf_Die> chain;
  if (!holder) return chain;
  chain.push_back(holder->die);
  Dwarf_Die inner;
  while (inner_scope(&chain.back(), pc, &inner)) chain.push_back(inner);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

}  // namespace omprof::unwind
