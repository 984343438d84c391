#include "omp/name.h"

#include <unordered_set>

namespace omprof::omp {

namespace {
// Node-based: an element's address never changes, so a Name may hold it.
std::unordered_set<std::string>& pool() {
  static auto* strings = new std::unordered_set<std::string>();  // never freed: Names outlive main
  return *strings;
}
}  // namespace

const std::string& Name::empty_string() {
  static const std::string* empty = &*pool().emplace().first;
  return *empty;
}

const std::string* Name::intern(std::string_view s) {
  if (s.empty()) return &empty_string();
  auto& strings = pool();
  // C++17 has no heterogeneous lookup in unordered containers: one temporary per new lookup.
  static std::string key;
  key.assign(s.data(), s.size());
  auto it = strings.find(key);
  if (it == strings.end()) it = strings.insert(key).first;
  return &*it;
}

}  // namespace omprof::omp
