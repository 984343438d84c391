// `report --sort KEY`: the order of the flat and source-line views (largest first), for rows
// with self, total, work and wait times.
#pragma once

#include <string>

namespace omprof::viewer {

enum class SortKey { kSelf, kTotal, kWork, kWait };

inline bool parse_sort_key(const std::string& s, SortKey& k) {
  if (s == "self")
    k = SortKey::kSelf;
  else if (s == "total")
    k = SortKey::kTotal;
  else if (s == "work")
    k = SortKey::kWork;
  else if (s == "wait")
    k = SortKey::kWait;
  else
    return false;
  return true;
}

inline const char* sort_key_name(SortKey k) {
  switch (k) {
    case SortKey::kTotal:
      return "total";
    case SortKey::kWork:
      return "work";
    case SortKey::kWait:
      return "wait";
    default:
      return "self";
  }
}

template <typename Row>
double sort_value(const Row& r, SortKey k) {
  switch (k) {
    case SortKey::kTotal:
      return double(r.total);
    case SortKey::kWork:
      return double(r.work);
    case SortKey::kWait:
      return double(r.wait);
    default:
      return double(r.self);
  }
}

// Whether `a` sorts before `b`: the larger key first, then the larger self and total time.
// Equal rows: the caller breaks the tie (by name), so that the order never depends on input.
template <typename Row>
bool heavier(const Row& a, const Row& b, SortKey k) {
  const double x = sort_value(a, k), y = sort_value(b, k);
  if (x != y) return x > y;
  if (a.self != b.self) return a.self > b.self;
  return a.total > b.total;
}
template <typename Row>
bool same_weight(const Row& a, const Row& b, SortKey k) {
  return sort_value(a, k) == sort_value(b, k) && a.self == b.self && a.total == b.total;
}

}  // namespace omprof::viewer
