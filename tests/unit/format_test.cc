// The collector's hand-written encoder against the schema's generated reader, and the reader's
// rejection of every kind of bad file.
#include <gtest/gtest.h>

#include "collector/wire.h"
#include "proto/profile_reader.h"

namespace omprof {
namespace {

const std::string kMagic("\x89OMPROF\n", 8);

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
StreamBuilder sample_stream(uint32_t major = 1) {
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

TEST(Format, RoundTripThroughTheGeneratedReader) {
  StreamBuilder s = sample_stream();
  s.trailer();
  format::Profile p = format::parse_profile(s.bytes, "x.omprof");
  EXPECT_EQ(p.header.format_major(), 1u);
  ASSERT_EQ(p.header.argv_size(), 2);
  EXPECT_EQ(p.header.argv(1), "--flag");
  EXPECT_EQ(p.header.pid(), 42u);
  EXPECT_EQ(p.header.mpi_rank(), -1);  // negative int32 survives the hand encoding
  EXPECT_TRUE(p.header.ompt_active());
  EXPECT_EQ(p.str(p.function(2).name()), "work");
  EXPECT_EQ(p.location(2).line(0).line(), 20);
  ASSERT_EQ(p.stack(1).location_id_size(), 2);
  EXPECT_EQ(p.stack(1).location_id(0), 2u);
  const auto& t = p.threads.at(0);
  EXPECT_EQ(t.cpu_time_ns(), 123456u);
  ASSERT_EQ(t.sample_size(), 1);
  EXPECT_EQ(t.sample(0).weight_ns(), 15000000u);
  EXPECT_EQ(t.sample(0).count(), 3u);
  EXPECT_EQ(p.forks.at(0).instances(), 7u);
  ASSERT_EQ(p.forks.at(0).team_sizes_size(), 2);
  EXPECT_EQ(p.forks.at(0).team_sizes(1), 4u);
  EXPECT_EQ(p.trailer.forwarded_signals(), 3u);
}

TEST(Format, ThreadChunksMerge) {
  StreamBuilder s = sample_stream();
  wire::Encoder th, smp;
  th.u64(1, 0);
  smp.u64(1, 1);
  smp.u64(2, 1);
  smp.u64(3, 5);
  th.message(7, smp);
  s.add(7, th);
  s.trailer();
  format::Profile p = format::parse_profile(s.bytes, "x");
  EXPECT_EQ(p.threads.at(0).sample_size(), 2);
  EXPECT_EQ(p.threads.at(0).cpu_time_ns(), 123456u);
}

std::string error_of(const std::string& bytes) {
  try {
    format::parse_profile(bytes, "f");
  } catch (const format::ProfileError& e) {
    return e.what();
  }
  return "";
}

TEST(Format, RejectsBadInput) {
  StreamBuilder good = sample_stream();
  good.trailer();
  EXPECT_EQ(error_of(""), "f: empty file, not an omprof profile");
  EXPECT_EQ(error_of("hello world, not a profile"), "f: not an omprof profile (bad magic)");
  EXPECT_NE(error_of(good.bytes.substr(0, good.bytes.size() - 4)).find("truncated"),
            std::string::npos);
  StreamBuilder no_trailer = sample_stream();
  EXPECT_NE(error_of(no_trailer.bytes).find("no trailer"), std::string::npos);
  StreamBuilder newer = sample_stream(2);
  newer.trailer();
  EXPECT_NE(error_of(newer.bytes).find("newer omprof (format 2"), std::string::npos);
  // A stack pointing at a location that does not exist.
  StreamBuilder dangling = sample_stream();
  wire::Encoder st;
  std::vector<uint64_t> locs = {99};
  st.u64(1, 2);
  st.packed(2, locs.begin(), locs.end());
  dangling.add(6, st);
  dangling.trailer();
  EXPECT_NE(error_of(dangling.bytes).find("missing location"), std::string::npos);
  // A record whose bytes are not a message.
  StreamBuilder junk = sample_stream();
  junk.bytes += std::string("\x05\xff\xff\xff\xff\xff", 6);
  EXPECT_NE(error_of(junk.bytes).find("corrupt"), std::string::npos);
  // Wrong record count in the trailer.
  StreamBuilder miscount = sample_stream();
  wire::Encoder t;
  t.u64(1, 3);
  miscount.add(15, t);
  EXPECT_NE(error_of(miscount.bytes).find("trailer counts"), std::string::npos);
}

}  // namespace
}  // namespace omprof
