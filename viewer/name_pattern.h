// The regular expressions of --focus, --ignore, --callers and --callees, matched against
// function names: RE2, whose matching takes time linear in the name and no recursion (with
// std::regex a 30 KB name overflowed the stack and a catastrophic pattern ran for minutes).
#pragma once

#include <memory>
#include <string>

namespace re2 {
class RE2;
}

namespace omprof::viewer {

class NamePattern {
 public:
  NamePattern();
  ~NamePattern();
  NamePattern(NamePattern&&) noexcept;
  NamePattern& operator=(NamePattern&&) noexcept;
  // Returns false with `error` (RE2's reason) when `pattern` is not a valid expression.
  bool compile(const std::string& pattern, std::string& error);
  // Whether the pattern matches anywhere in `name` (a search, not a full match).
  bool found_in(const std::string& name) const;

 private:
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace omprof::viewer
