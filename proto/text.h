// Text conventions shared by everything that writes omprof's outputs: the CSV quoting of every
// CSV view (docs/format.md, CSV) and the file names shown and used in profile names.
// Header-only and pure.
#pragma once

#include <string>

namespace omprof::text {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
inline std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// The last component of a path ("/a/b/c.so" -> "c.so").
inline std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace omprof::text
