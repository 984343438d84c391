// Hand-built profile files for reader and viewer tests: the collector's own encoder, record by
// record, so that tests can write what the collector never would.
#pragma once

#include <string>
#include <vector>

#include "proto/format.h"
#include "proto/profile_reader.h"
#include "proto/wire.h"

namespace omprof::test {

inline const std::string kMagic(omprof::format::kMagic);

struct StreamBuilder {
  std::string bytes = kMagic;
  uint64_t records = 0;
  void add(uint32_t field, const wire::Encoder& msg) {
    wire::Encoder rec, len;
    rec.message(field, msg);
    len.varint(rec.size());
    bytes += len.bytes() + rec.bytes();
    ++records;
  }
  void trailer() {
    wire::Encoder t;
    t.u64(1, records);
    t.u64(4, 3);
    add(15, t);
  }
};

// A small but complete profile: main -> work, one thread, one fork record.
inline StreamBuilder sample_stream(uint32_t major = 1) {
  StreamBuilder s;
  wire::Encoder h;
  h.u64(1, major);
  h.str(4, "/bin/app");
  h.str(5, "/bin/app");
  h.str(5, "--flag");
  h.u64(6, 42);
  h.u64(10, 1);
  h.u64(11, 200);
  h.u64(12, 5000000);
  h.boolean(16, true);
  h.i32(18, -1);
  s.add(1, h);
  wire::Encoder strings;
  for (const char* str : {"", "main", "work", "app.c", "/bin/app"}) strings.str(1, str);
  s.add(2, strings);
  wire::Encoder map;
  map.u64(1, 1);
  map.u64(2, 0x1000);
  map.u64(3, 0x2000);
  map.u64(5, 4);
  s.add(3, map);
  for (uint64_t id : {1, 2}) {
    wire::Encoder fn;
    fn.u64(1, id);
    fn.u64(2, id);  // "main", "work"
    fn.u64(4, 3);
    s.add(4, fn);
  }
  for (uint64_t id : {1, 2}) {
    wire::Encoder loc, line;
    loc.u64(1, id);
    loc.u64(2, 1);
    loc.u64(3, 0x1000 + id);
    line.u64(1, id);
    line.i64(2, 10 * int64_t(id));
    loc.message(4, line);
    s.add(5, loc);
  }
  wire::Encoder st;
  std::vector<uint64_t> locs = {2, 1};
  st.u64(1, 1);
  st.packed(2, locs.begin(), locs.end());
  s.add(6, st);
  wire::Encoder th, smp;
  th.u64(1, 0);
  th.u64(2, 42);
  th.boolean(3, true);
  th.u64(6, 123456);
  smp.u64(1, 1);
  smp.u64(2, 3);
  smp.u64(3, 15000000);
  smp.u64(4, 1);
  smp.u64(5, 1);
  th.message(7, smp);
  s.add(7, th);
  wire::Encoder fork;
  fork.u64(1, 1);
  fork.u64(3, 1);
  fork.u64(4, 1);
  fork.u64(5, 7);
  std::vector<uint32_t> teams = {2, 4};
  fork.packed(6, teams.begin(), teams.end());
  s.add(8, fork);
  return s;
}

// The reader's one-line error for `bytes` (named "f"), or "" if they parse.
inline std::string error_of(const std::string& bytes) {
  try {
    format::parse_profile(bytes, "f");
  } catch (const format::ProfileError& e) {
    return e.what();
  }
  return "";
}

}  // namespace omprof::test
