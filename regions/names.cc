#include "regions/names.h"

#include <cstdio>

#include "omprof/omprof.h"

namespace omprof::regions {

const char* status_name(int status) {
  static const char* const names[] = {OMPROF_STATUS_NAMES};
  return (status >= 0 && size_t(status) < sizeof names / sizeof names[0]) ? names[status]
                                                                          : "not an omprof status";
}

Status normalize_name(const char* name, std::string& out) {
  if (!name) return kInvalidName;
  size_t len = 0;
  while (name[len]) ++len;
  while (len > 0 && name[len - 1] == ' ') --len;
  if (len == 0 || name[0] == ' ') return kInvalidName;
  for (size_t i = 0; i < len; ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f) return kInvalidName;
  }
  out.assign(name, len);
  return kSuccess;
}

namespace {

void hex_byte(std::string& out, unsigned char c) {
  char buf[5];
  std::snprintf(buf, sizeof buf, "\\x%02X", c);
  out += buf;
}

// Length of the valid UTF-8 sequence starting at s[i] (0 if invalid).
size_t utf8_length(const std::string& s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  if (n == 2 && c < 0xC2) return 0;  // overlong
  return n;
}

}  // namespace

std::string escape_name(const std::string& s) {
  if (s.find_first_not_of(' ') == std::string::npos) return "<blank>";
  std::string out;
  size_t i = 0;
  for (; i < s.size() && s[i] == ' '; ++i) out += "\\x20";
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      hex_byte(out, c);
    } else if (c < 0x80) {
      out += char(c);
    } else {
      const size_t n = utf8_length(s, i);
      const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
      if (n == 0 || c1) {
        // Invalid UTF-8 byte, or a C1 control (U+0080..U+009F): every byte escaped.
        const size_t bytes = n == 0 ? 1 : n;
        for (size_t k = 0; k < bytes; ++k) hex_byte(out, static_cast<unsigned char>(s[i + k]));
        i += bytes;
        continue;
      }
      out.append(s, i, n);
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

}  // namespace omprof::regions
