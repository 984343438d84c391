// The collector's hand-written encoder against the schema's generated reader, and the reader's
// rejection of every kind of bad file.
#include <gtest/gtest.h>

#include "proto/profile_reader.h"
#include "stream_builder.h"

namespace omprof {
namespace {

using test::error_of;
using test::sample_stream;
using test::StreamBuilder;

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
