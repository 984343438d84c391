// Report views on a small profile built in memory: main -> {a -> c, b}, one wait sample.
#include "viewer/report.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "viewer/counter_facts.h"
#include "viewer/diff.h"

namespace omprof::viewer {
namespace {

format::Profile make_profile() {
  format::Profile p;
  p.path = "mem.omprof";
  p.strings = {"", "main", "a", "b", "c", "app.c", "/bin/app", "x,\"y\""};
  p.header.set_format_major(1);
  p.header.set_program("/bin/app");
  v1::Mapping m;
  m.set_id(1);
  m.set_filename(6);
  p.mappings.push_back(m);
  for (uint64_t id = 1; id <= 4; ++id) {
    v1::Function f;
    f.set_id(id);
    f.set_name(id == 4 ? 7 : id);  // function 4 has a name that needs CSV quoting
    f.set_filename(5);
    p.functions.push_back(f);
    v1::Location l;
    l.set_id(id);
    l.set_mapping_id(1);
    l.set_address(0x1000 + id);
    auto* line = l.add_line();
    line->set_function_id(id);
    line->set_line(int64_t(id));
    p.locations.push_back(l);
  }
  auto stack = [&](std::vector<uint64_t> locs) {
    v1::Stack s;
    s.set_id(p.stacks.size() + 1);
    for (uint64_t l : locs) s.add_location_id(l);
    p.stacks.push_back(s);
  };
  stack({1});        // main
  stack({2, 1});     // a <- main
  stack({3, 1});     // b <- main
  stack({4, 2, 1});  // c <- a <- main
  v1::ThreadProfile t;
  t.set_index(0);
  t.set_is_main(true);
  auto sample = [&](uint64_t stack_id, uint64_t ms, uint32_t state) {
    auto* s = t.add_sample();
    s->set_stack_id(stack_id);
    s->set_count(ms / 5);
    s->set_weight_ns(ms * 1000000);
    s->set_omp_state(state);
  };
  sample(1, 100, 0);
  sample(2, 200, 0);
  sample(3, 300, 0);
  sample(4, 400, 0);
  sample(3, 1000, 0x10);  // b waiting at a barrier
  p.threads[0] = t;
  return p;
}

std::string csv(const Table& t) {
  std::ostringstream out;
  t.print(out, Format::kCsv);
  return out.str();
}

TEST(Report, FlatViewSelfTotalWorkWait) {
  format::Profile p = make_profile();
  Model m = build_model(p, omp::View::kMachine);
  EXPECT_EQ(m.total_weight_ns, 2000000000u);
  EXPECT_EQ(csv(flat_table(m, 10, Format::kCsv)),
            "self_s,self%,total_s,total%,work_s,wait_s,file,function,total_err_s,samples\n"
            "1.300,65.0,1.300,65.0,0.300,1.000,app.c,b,0.081,260\n"
            "0.400,20.0,0.400,20.0,0.400,0.000,app.c,\"x,\"\"y\"\"\",0.045,80\n"
            "0.200,10.0,0.600,30.0,0.600,0.000,app.c,a,0.055,120\n"
            "0.100,5.0,2.000,100.0,1.000,1.000,app.c,main,0.100,400\n");
  // total_err_s: sqrt(sum over sampled entries of weight^2 / count); b's 60 samples of 300 ms
  // and 200 of 1000 ms: sqrt(0.09 / 60 + 1 / 200) = 0.081 s.
  EXPECT_EQ(flat_table(m, 2, Format::kCsv).size(), 2u);
}

// --sort: total puts main first; wait puts b (1 s waiting) then main (which holds it) first, the
// rest (no wait) by self time; work puts main (1 s of work below it) first.
TEST(Report, FlatViewSortKeys) {
  format::Profile p = make_profile();
  Model m = build_model(p, omp::View::kMachine);
  // The functions by their sample counts, CSV's last column: each has its own.
  const std::map<std::string, std::string> name_of = {
      {"260", "b"}, {"80", "x"}, {"120", "a"}, {"400", "main"}};
  auto order = [&](SortKey k) {
    std::string names;
    std::istringstream lines(csv(flat_table(m, 0, Format::kCsv, k)));
    std::string line;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) names += name_of.at(line.substr(line.rfind(',') + 1)) + " ";
    return names;
  };
  EXPECT_EQ(order(SortKey::kSelf), "b x a main ");
  EXPECT_EQ(order(SortKey::kTotal), "main b a x ");
  EXPECT_EQ(order(SortKey::kWait), "b main x a ");
  EXPECT_EQ(order(SortKey::kWork), "main a x b ");
  SortKey k;
  EXPECT_TRUE(parse_sort_key("wait", k));
  EXPECT_EQ(k, SortKey::kWait);
  EXPECT_FALSE(parse_sort_key("name", k));
}

TEST(Report, TreeViewInclusiveAndPruning) {
  format::Profile p = make_profile();
  Model m = build_model(p, omp::View::kMachine);
  EXPECT_EQ(csv(tree_table(m, 0.0, Format::kCsv)),
            "node_id,parent_id,depth,incl_s,incl%,self_s,work_s,wait_s,name\n"
            "1,0,0,2.000,100.0,0.100,1.000,1.000,main\n"
            "3,1,1,1.300,65.0,1.300,0.300,1.000,b\n"
            "2,1,1,0.600,30.0,0.200,0.600,0.000,a\n"
            "4,2,2,0.400,20.0,0.400,0.400,0.000,\"x,\"\"y\"\"\"\n");
  EXPECT_EQ(tree_table(m, 25.0, Format::kCsv).size(), 3u);  // c (20%) pruned
  std::ostringstream text;
  tree_table(m, 0.0, Format::kText).print(text, Format::kText);
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

TEST(Report, ThreadAndStateViews) {
  format::Profile p = make_profile();
  Model m = build_model(p, omp::View::kUser);
  std::string threads = csv(thread_table(m, Format::kCsv));
  EXPECT_NE(
      threads.find("thread,tid,samples,sampled_s,cpu_s,work_s,wait_s,wait%,dropped,truncated,kind,"
                   "wait_err%,overhead_s,overhead%,runq_s,invol_sw,cpus\n"),
      std::string::npos);
  // 200 of 400 samples wait: the binomial error sqrt(0.5 * 0.5 / 400) = 2.5 points.
  // No machine facts in this profile (as before format 1.14): runq_s, invol_sw, cpus are empty.
  EXPECT_NE(threads.find("0,0,400,2.000,0.000,1.000,1.000,50.0,0,0,main,2.5,0.000,0.0,,,\n"),
            std::string::npos)
      << threads;
  std::string states = csv(state_table(m));
  // The frame column names the state as the call views show it (one thing, one link).
  EXPECT_NE(states.find("wait_barrier,wait,all,1.000,50.0,<omp:barrier>\n"), std::string::npos)
      << states;
  EXPECT_NE(states.find("work_serial,work,0,1.000,50.0,\n"), std::string::npos) << states;
}

TEST(Report, UserViewShowsWaitPseudoFrame) {
  format::Profile p = make_profile();
  Model m = build_model(p, omp::View::kUser);
  std::string flat = csv(flat_table(m, 10, Format::kCsv));
  EXPECT_NE(flat.find("1.000,50.0,1.000,50.0,0.000,1.000,,<omp:barrier>,0.071,200\n"),
            std::string::npos)
      << flat;
}

TEST(Report, CsvQuoting) {
  EXPECT_EQ(csv_quote("plain"), "plain");
  EXPECT_EQ(csv_quote("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_quote("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_quote("two\nlines"), "\"two\nlines\"");
}

}  // namespace
}  // namespace omprof::viewer

namespace omprof::viewer {
namespace {

TEST(Report, IncompleteStacksSayWhatIsMissingAtTheRoot) {
  format::Profile p = make_profile();
  v1::Stack failed;
  failed.set_id(p.stacks.size() + 1);
  failed.add_location_id(3);
  failed.set_unwind_failed(true);
  p.stacks.push_back(failed);
  v1::Stack cut = p.stacks[3];  // c <- a <- main, but cut at the depth limit
  cut.set_id(p.stacks.size() + 1);
  cut.set_truncated(true);
  p.stacks.push_back(cut);
  auto* s = p.threads[0].add_sample();
  s->set_stack_id(failed.id());
  s->set_count(1);
  s->set_weight_ns(5000000);
  s = p.threads[0].add_sample();
  s->set_stack_id(cut.id());
  s->set_count(1);
  s->set_weight_ns(5000000);
  for (omp::View view : {omp::View::kUser, omp::View::kMachine}) {
    Model m = build_model(p, view);
    std::set<std::string> roots;
    for (const auto& smp : m.samples) roots.insert(smp.stack.back().name);
    EXPECT_TRUE(roots.count("<unwind failed>"));
    EXPECT_TRUE(roots.count("<truncated>"));
    EXPECT_TRUE(roots.count("main"));
  }
}

}  // namespace
}  // namespace omprof::viewer

namespace omprof::viewer {
namespace {

// A change from (almost) nothing is "new", a growth beyond ten times its ratio: "+20795351.3%"
// from a base of a few nanoseconds said nothing a reader could use.
TEST(DiffChange, FromNothingIsNewAndGrowthIsARatio) {
  EXPECT_EQ(change_percent(0, 5e9, Format::kText), "new");
  EXPECT_EQ(change_percent(12, 2.5e8, Format::kText), "new");  // 12 ns: below a microsecond
  EXPECT_EQ(change_percent(1e6, 2.05e7, Format::kText), "x20.5");
  EXPECT_EQ(change_percent(1e9, 1.2e9, Format::kText), "+20.0");
  EXPECT_EQ(change_percent(1e9, 0, Format::kText), "gone");
  EXPECT_EQ(change_percent(0, 5e9, Format::kCsv), "");                  // JSON null: no base
  EXPECT_EQ(change_percent(12, 2.5e8, Format::kCsv), "+2083333233.3");  // machines get the number
}

// The Counters line says what share of the enabled time the counts cover when the CPU's counters
// did not hold the events all the time (format 1.19), and nothing when they ran throughout.
TEST(Report, CountersThatRanPartOfTheTimeSaySo) {
  format::Profile p = make_profile();
  p.header.add_counter_event("cycles");
  p.threads[0].add_counter_total(900);
  p.threads[0].set_counter_enabled_ns(1000);
  p.threads[0].set_counter_running_ns(1000);
  std::ostringstream whole;
  print_counter_lines(whole, counter_facts(p));
  EXPECT_NE(whole.str().find("Counters:  cycles 900"), std::string::npos) << whole.str();
  EXPECT_EQ(whole.str().find("counted "), std::string::npos) << whole.str();
  p.threads[0].set_counter_running_ns(250);
  std::ostringstream part;
  print_counter_lines(part, counter_facts(p));
  EXPECT_NE(part.str().find("counted 25.0% of the time they were enabled"), std::string::npos)
      << part.str();
  EXPECT_DOUBLE_EQ(counter_json(p, counter_facts(p))[0]["counted_fraction"].get<double>(), 0.25);
}

// The report derives IPC and misses per 1000 instructions from the threads' exact counts, for
// the run and per thread.
TEST(Report, DerivedMetricsFromTheThreadsCounts) {
  format::Profile p = make_profile();
  for (const char* e : {"cycles", "instructions", "cache-misses"}) p.header.add_counter_event(e);
  for (uint64_t n : {1000, 1500, 3}) p.threads[0].add_counter_total(n);
  v1::ThreadProfile other = p.threads[0];
  other.set_index(1);
  other.clear_counter_total();
  for (uint64_t n : {1000, 500, 1}) other.add_counter_total(n);
  p.threads[1] = other;
  const CounterFacts c = counter_facts(p);
  ASSERT_EQ(c.derived.size(), 2u);
  EXPECT_DOUBLE_EQ(c.derived[0].value, 1.0);  // 2000 instructions in 2000 cycles
  EXPECT_DOUBLE_EQ(c.derived[1].value, 2.0);  // 4 misses in 2000 instructions
  std::ostringstream text;
  print_counter_lines(text, c);
  EXPECT_NE(text.str().find("Derived:   IPC 1, cache-misses per 1000 instructions 2"),
            std::string::npos)
      << text.str();
  const nlohmann::json j = derived_json(p, c);
  EXPECT_DOUBLE_EQ(j[0]["per_thread"]["0"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j[0]["per_thread"]["1"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j[1]["per_thread"]["0"].get<double>(), 2.0);
}

}  // namespace
}  // namespace omprof::viewer
