// The events `omprof run --counters` accepts (proto/counter_events.h).
#include "proto/counter_events.h"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

namespace omprof::counters {
namespace {

TEST(CounterEvents, KernelEventsByNameAndAlias) {
  std::vector<EventSpec> events;
  std::string error;
  ASSERT_TRUE(parse_event_list("faults,cs,migrations,task-clock", events, error)) << error;
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].name, "page-faults");
  EXPECT_EQ(events[0].perf_config, uint32_t(PERF_COUNT_SW_PAGE_FAULTS));
  EXPECT_EQ(events[1].name, "context-switches");
  EXPECT_EQ(events[1].perf_config, uint32_t(PERF_COUNT_SW_CONTEXT_SWITCHES));
  EXPECT_EQ(events[2].name, "cpu-migrations");
  EXPECT_EQ(events[3].unit, "ns");
  EXPECT_EQ(join_names(events), "page-faults,context-switches,cpu-migrations,task-clock");
}

TEST(CounterEvents, PapiNamesGoToPapi) {
  std::vector<EventSpec> events;
  std::string error;
  ASSERT_TRUE(parse_event_list("PAPI_TOT_CYC,perf::CYCLES,minor-faults", events, error));
  EXPECT_EQ(events[0].source, Source::kPapi);
  EXPECT_EQ(events[1].source, Source::kPapi);
  EXPECT_EQ(events[2].source, Source::kKernel);
}

TEST(CounterEvents, OneEventMaySampleAndLeadsTheGroup) {
  std::vector<EventSpec> events;
  std::string error;
  ASSERT_TRUE(parse_event_list("cs,faults:64,migrations", events, error)) << error;
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].name, "page-faults");
  EXPECT_EQ(events[0].sample_period, 64u);
  EXPECT_EQ(events[1].name, "context-switches");
  EXPECT_EQ(events[1].sample_period, 0u);
  EXPECT_EQ(join_names(events), "page-faults:64,context-switches,cpu-migrations");
  ASSERT_TRUE(parse_event_list(join_names(events), events, error)) << "the collector's parse";
  EXPECT_EQ(events[0].sample_period, 64u);
  EXPECT_FALSE(parse_event_list("faults:0", events, error));
  EXPECT_NE(error.find("from 1 to 2^62"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("faults:many", events, error));
  EXPECT_FALSE(parse_event_list("faults:-5", events, error));
  EXPECT_FALSE(parse_event_list("faults:99999999999999999999", events, error));
  EXPECT_FALSE(parse_event_list("faults:8,cs:8", events, error));
  EXPECT_NE(error.find("one event at most"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("PAPI_TOT_CYC:1000000", events, error));
  EXPECT_NE(error.find("only kernel events"), std::string::npos) << error;
  ASSERT_TRUE(parse_event_list("perf::PAGE-FAULTS", events, error)) << "a native PAPI name";
  EXPECT_EQ(events[0].sample_period, 0u);
}

TEST(CounterEvents, BadListsAreOneLineErrors) {
  std::vector<EventSpec> events;
  std::string error;
  EXPECT_FALSE(parse_event_list("", events, error));
  EXPECT_NE(error.find("at least one event"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("page-faults,,cs", events, error));
  EXPECT_NE(error.find("empty event name"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("cycles", events, error));
  EXPECT_NE(error.find("unknown counter event 'cycles'"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("cs,context-switches", events, error));
  EXPECT_NE(error.find("context-switches twice"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("faults,cs,migrations,task-clock,major-faults", events, error));
  EXPECT_NE(error.find("at most 4"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace omprof::counters
