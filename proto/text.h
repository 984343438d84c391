// Text conventions shared by everything that writes omprof's outputs: the CSV quoting of every
// CSV view (docs/format.md, CSV) and the file names shown and used in profile names.
// Header-only and pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace omprof::text {

// Whether a spreadsheet would take the cell for a formula: it starts with '=', '@', a tab or a
// carriage return, or with '+' or '-' and is neither a number nor that sign alone.
inline bool formula_like(const std::string& s) {
  if (s.empty()) return false;
  const char c = s[0];
  if (c == '=' || c == '@' || c == '\t' || c == '\r') return true;
  if ((c != '+' && c != '-') || s.size() == 1) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end != s.c_str() + s.size();
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. A field a
// spreadsheet would run as a formula (a function named "=HYPERLINK(...)") is prefixed with a
// quote mark, which makes it text (OWASP's advice for CSV injection).
inline std::string csv_quote(const std::string& field) {
  const std::string s = formula_like(field) ? "'" + field : field;
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Text for a terminal: control characters (C0, DEL, and C1 as UTF-8) become \xNN, so that a
// name holding escape sequences cannot move the cursor, recolour or retitle the terminal.
inline std::string printable(const std::string& s) {
  static const char* const hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool c1 =
        c == 0xC2 && i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) & 0xE0) == 0x80;
    if (c >= 0x20 && c != 0x7f && !c1) {
      out += char(c);
      continue;
    }
    for (size_t k = 0; k < (c1 ? 2u : 1u); ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      out += "\\x";
      out += hex[b >> 4];
      out += hex[b & 15];
    }
    i += c1 ? 1 : 0;
  }
  return out;
}

// The last component of a path ("/a/b/c.so" -> "c.so").
// "0-3,8": the CPUs of a bit mask of `words` 64-bit words (bit k: CPU k); "" when empty.
inline std::string cpu_list(const uint64_t* mask, size_t words) {
  std::string out;
  const size_t bits = words * 64;
  auto set = [&](size_t cpu) { return (mask[cpu / 64] >> (cpu % 64) & 1) != 0; };
  for (size_t cpu = 0; cpu < bits;) {
    if (!set(cpu)) {
      ++cpu;
      continue;
    }
    size_t last = cpu;
    while (last + 1 < bits && set(last + 1)) ++last;
    out += (out.empty() ? "" : ",") + std::to_string(cpu);
    if (last > cpu) out += "-" + std::to_string(last);
    cpu = last + 1;
  }
  return out;
}

inline std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace omprof::text
