// A string interned for the life of the process. A profile's frames repeat a few thousand
// function and file names millions of times (every distinct stack, every tree node): a Name is
// one pointer, so copying a frame allocates nothing and two names compare as pointers.
// Offline only (the viewer); not thread-safe: the viewer reads profiles on one thread.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace omprof::omp {

class Name {
 public:
  Name() noexcept : s_(&empty_string()) {}
  Name(const std::string& s) : s_(intern(s)) {}  // NOLINT(google-explicit-constructor): a name
  Name(std::string_view s) : s_(intern(s)) {}    // NOLINT(google-explicit-constructor)
  Name(const char* s) : s_(intern(std::string_view(s))) {}  // NOLINT(google-explicit-constructor)

  const std::string& str() const { return *s_; }
  operator const std::string&() const { return *s_; }  // NOLINT: reads as the string
  bool empty() const { return s_->empty(); }
  size_t size() const { return s_->size(); }
  const char* c_str() const { return s_->c_str(); }
  char operator[](size_t i) const { return (*s_)[i]; }
  char front() const { return s_->front(); }
  char back() const { return s_->back(); }
  // The same pointer for the same text, for as long as the process runs.
  const void* identity() const { return s_; }

  friend bool operator==(const Name& a, const Name& b) { return a.s_ == b.s_; }
  friend bool operator!=(const Name& a, const Name& b) { return a.s_ != b.s_; }
  friend bool operator==(const Name& a, const std::string& b) { return *a.s_ == b; }
  friend bool operator!=(const Name& a, const std::string& b) { return *a.s_ != b; }
  friend bool operator==(const std::string& a, const Name& b) { return a == *b.s_; }
  friend bool operator!=(const std::string& a, const Name& b) { return a != *b.s_; }
  friend bool operator==(const Name& a, const char* b) { return *a.s_ == b; }
  friend bool operator!=(const Name& a, const char* b) { return *a.s_ != b; }
  // By text, so that orders do not depend on where names were allocated.
  friend bool operator<(const Name& a, const Name& b) { return a.s_ != b.s_ && *a.s_ < *b.s_; }
  friend std::string operator+(const std::string& a, const Name& b) { return a + *b.s_; }
  friend std::string operator+(const Name& a, const std::string& b) { return *a.s_ + b; }
  friend std::string operator+(const char* a, const Name& b) { return a + *b.s_; }
  friend std::string operator+(const Name& a, const char* b) { return *a.s_ + b; }
  friend std::ostream& operator<<(std::ostream& os, const Name& n) { return os << *n.s_; }

 private:
  static const std::string& empty_string();
  static const std::string* intern(std::string_view s);
  const std::string* s_;
};

}  // namespace omprof::omp

template <>
struct std::hash<omprof::omp::Name> {
  size_t operator()(const omprof::omp::Name& n) const noexcept {
    return std::hash<const void*>()(n.identity());
  }
};

template <>
struct fmt::formatter<omprof::omp::Name> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(const omprof::omp::Name& n, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(n.str()), ctx);
  }
};
