// The events `omprof run --counters` accepts (proto/counter_events.h).
#include "proto/counter_events.h"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include "viewer/derived_cells.h"

namespace omprof::counters {
namespace {

TEST(CounterEvents, KernelEventsByNameAndAlias) {
  std::vector<EventSpec> events;
  std::string error;
  ASSERT_TRUE(parse_event_list("faults,cs,migrations,task-clock", events, error)) << error;
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].name, "page-faults");
  EXPECT_EQ(events[0].perf.type, uint32_t(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(events[0].perf.config, uint64_t(PERF_COUNT_SW_PAGE_FAULTS));
  EXPECT_TRUE(events[0].encoded);
  EXPECT_EQ(events[1].name, "context-switches");
  EXPECT_EQ(events[1].perf.config, uint64_t(PERF_COUNT_SW_CONTEXT_SWITCHES));
  EXPECT_EQ(events[2].name, "cpu-migrations");
  EXPECT_EQ(events[3].unit, "ns");
  EXPECT_EQ(join_names(events), "page-faults,context-switches,cpu-migrations,task-clock");
}

TEST(CounterEvents, HardwareEventsByPerfsNames) {
  std::vector<EventSpec> events;
  std::string error;
  ASSERT_TRUE(parse_event_list("cpu-cycles,instructions,branch-instructions", events, error));
  EXPECT_EQ(events[0].name, "cycles");
  EXPECT_EQ(events[0].perf.type, uint32_t(PERF_TYPE_HARDWARE));
  EXPECT_EQ(events[0].perf.config, uint64_t(PERF_COUNT_HW_CPU_CYCLES));
  EXPECT_TRUE(is_hardware(events[1].perf));
  EXPECT_EQ(events[2].name, "branches");
  ASSERT_TRUE(parse_event_list("page-faults", events, error));
  EXPECT_FALSE(is_hardware(events[0].perf));
}

// PAPI presets and PAPI components' native events ("comp:::event") go to PAPI, libpfm4's names
// ("pmu::event[:modifiers]") to libpfm4; both are encoded by the launcher.
TEST(CounterEvents, NamedEventsWaitForTheirEncoding) {
  std::vector<EventSpec> events;
  std::string error;
  ASSERT_TRUE(parse_event_list("PAPI_TOT_CYC,perf::CYCLES:u,rapl:::PACKAGE_ENERGY,minor-faults",
                               events, error))
      << error;
  EXPECT_EQ(events[0].source, Source::kPapi);
  EXPECT_EQ(events[1].source, Source::kNative);
  EXPECT_EQ(events[1].name, "perf::CYCLES:u") << "a modifier is part of the name, not a period";
  EXPECT_EQ(events[2].source, Source::kPapi);
  EXPECT_EQ(events[3].source, Source::kKernel);
  EXPECT_FALSE(events[0].encoded);
  EXPECT_FALSE(events[1].encoded);
  EXPECT_TRUE(events[3].encoded);
}

TEST(CounterEvents, EncodingsTravelBesideTheNames) {
  std::vector<EventSpec> events;
  std::string error;
  ASSERT_TRUE(parse_event_list("perf::PAGE-FAULTS:64,cs", events, error)) << error;
  events[0].perf = {PERF_TYPE_RAW, 0x1234abcd5678ULL, 7, 0xffffffffffffffffULL};
  const std::string text = join_encodings(events);
  EXPECT_EQ(text, "4/1234abcd5678/7/ffffffffffffffff,1/3/0/0");
  std::vector<EventSpec> again;
  ASSERT_TRUE(parse_event_list(join_names(events), again, error)) << error;
  EXPECT_EQ(again[0].sample_period, 64u);
  ASSERT_TRUE(apply_encodings(text, again, error)) << error;
  EXPECT_EQ(again[0].perf.type, uint32_t(PERF_TYPE_RAW));
  EXPECT_EQ(again[0].perf.config, 0x1234abcd5678ULL);
  EXPECT_EQ(again[0].perf.config1, 7u);
  EXPECT_EQ(again[0].perf.config2, 0xffffffffffffffffULL);
  EXPECT_TRUE(again[0].encoded);
  EXPECT_FALSE(apply_encodings("1/3/0/0", again, error)) << "one encoding per event";
  EXPECT_FALSE(apply_encodings("1/3/0,1/3/0/0", again, error));
  EXPECT_FALSE(apply_encodings("1/3/0/0x,1/3/0/0", again, error));
  EXPECT_FALSE(apply_encodings("1/3/0/0/0,1/3/0/0", again, error));
  EXPECT_FALSE(apply_encodings("1//0/0,1/3/0/0", again, error));
  EXPECT_FALSE(apply_encodings("100000000/3/0/0,1/3/0/0", again, error)) << "type is 32 bits";
  EXPECT_NE(error.find("malformed"), std::string::npos) << error;
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
  ASSERT_TRUE(parse_event_list("PAPI_TOT_CYC:1000000", events, error)) << "any event samples";
  EXPECT_EQ(events[0].sample_period, 1000000u);
  ASSERT_TRUE(parse_event_list("perf::PAGE-FAULTS", events, error)) << "a libpfm4 name";
  EXPECT_EQ(events[0].sample_period, 0u);
}

TEST(CounterEvents, BadListsAreOneLineErrors) {
  std::vector<EventSpec> events;
  std::string error;
  EXPECT_FALSE(parse_event_list("", events, error));
  EXPECT_NE(error.find("at least one event"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("page-faults,,cs", events, error));
  EXPECT_NE(error.find("empty event name"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("cycels", events, error));
  EXPECT_NE(error.find("unknown counter event 'cycels'"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("perf::", events, error));
  EXPECT_FALSE(parse_event_list("cs,context-switches", events, error));
  EXPECT_NE(error.find("context-switches twice"), std::string::npos) << error;
  EXPECT_FALSE(parse_event_list("faults,cs,migrations,task-clock,major-faults", events, error));
  EXPECT_NE(error.find("at most 4"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

// The metrics derived from counted events: IPC where cycles and instructions are both counted
// (whatever the names: perf's, libpfm4's, PAPI's), misses per 1000 instructions for every miss
// event where instructions are counted, nothing else.
TEST(CounterEvents, DerivedMetricsWhereTheirInputsAreCounted) {
  EXPECT_EQ(quantity_of("cycles"), Quantity::kCycles);
  EXPECT_EQ(quantity_of("PAPI_TOT_CYC"), Quantity::kCycles);
  EXPECT_EQ(quantity_of("perf::PERF_COUNT_HW_INSTRUCTIONS"), Quantity::kInstructions);
  EXPECT_EQ(quantity_of("PAPI_L3_TCM"), Quantity::kMisses);
  EXPECT_EQ(quantity_of("PAPI_BR_MSP"), Quantity::kMisses);
  EXPECT_EQ(quantity_of("perf::LLC-LOAD-MISSES"), Quantity::kMisses);
  EXPECT_EQ(quantity_of("page-faults"), Quantity::kOther);
  EXPECT_EQ(quantity_of("PAPI_L3_TCA"), Quantity::kOther) << "accesses, not misses";
  auto d = derived_metrics({"PAPI_L3_TCM", "PAPI_TOT_CYC", "page-faults", "PAPI_TOT_INS"});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].name, "IPC");
  EXPECT_EQ(d[0].numerator, 3u);
  EXPECT_EQ(d[0].denominator, 1u);
  EXPECT_EQ(d[1].name, "PAPI_L3_TCM per 1000 instructions");
  EXPECT_EQ(d[1].numerator, 0u);
  EXPECT_EQ(d[1].denominator, 3u);
  EXPECT_EQ(d[1].scale, 1000);
  EXPECT_TRUE(derived_metrics({"cycles", "cache-misses"}).empty()) << "no instructions";
  EXPECT_EQ(derived_metrics({"instructions", "branch-misses"}).size(), 1u) << "MPKI, no IPC";
  EXPECT_TRUE(derived_metrics({"page-faults", "context-switches"}).empty());
}

// A table row's derived cells (viewer/derived_cells.h): IPC and MPKI from its counts, a rate
// per second of its thread time for every event but time, cycles and instructions, and one
// relative error: none when counts and time are exact, 1/sqrt(samples) when any is sampled.
TEST(CounterEvents, DerivedCellsOfATableRow) {
  const std::vector<std::string> events = {"PAPI_TOT_INS", "cycles", "cache-misses", "page-faults",
                                           "task-clock"};
  EXPECT_EQ(viewer::derived_columns(events),
            (std::vector<std::string>{"IPC", "cache-misses per 1000 instructions", "cache-misses/s",
                                      "page-faults/s", "derived_err%"}));
  viewer::RowCounts row;
  row.counts = {3e9, 2e9, 6e6, 500};
  row.thread_ns = 0.5e9;
  row.counts_exact = row.time_exact = true;
  row.samples = 100;
  std::vector<std::string> cells;
  viewer::derived_cells({"PAPI_TOT_INS", "cycles", "cache-misses", "page-faults"}, row, cells);
  EXPECT_EQ(cells, (std::vector<std::string>{"1.5", "2", "1.2e+07", "1000", "0.0"}));
  row.counts = {500, 0, 0, 0};
  row.time_exact = false;  // exact counts over sampled time: the rates are sampled
  cells.clear();
  viewer::derived_cells({"page-faults"}, row, cells);
  EXPECT_EQ(cells, (std::vector<std::string>{"1000", "10.0"}));
  row.thread_ns = 0;  // no time: no rate
  cells.clear();
  viewer::derived_cells({"page-faults"}, row, cells);
  EXPECT_EQ(cells, (std::vector<std::string>{"-", "-"}));
  EXPECT_TRUE(viewer::derived_columns({"task-clock"}).empty());
}

}  // namespace
}  // namespace omprof::counters
