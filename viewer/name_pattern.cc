#include "viewer/name_pattern.h"

#include <re2/re2.h>

namespace omprof::viewer {

NamePattern::NamePattern() = default;
NamePattern::~NamePattern() = default;
NamePattern::NamePattern(NamePattern&&) noexcept = default;
NamePattern& NamePattern::operator=(NamePattern&&) noexcept = default;

bool NamePattern::compile(const std::string& pattern, std::string& error) {
  RE2::Options options;
  options.set_log_errors(false);  // the caller reports the error, on one line
  re_ = std::make_unique<re2::RE2>(pattern, options);
  if (re_->ok()) return true;
  error = re_->error();
  re_.reset();
  return false;
}

bool NamePattern::found_in(const std::string& name) const {
  return re_ && RE2::PartialMatch(name, *re_);
}

}  // namespace omprof::viewer
