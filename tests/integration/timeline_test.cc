// The timeline against a designed switch (tests/programs/omp_timeline.c): a balanced phase, then
// thread 1 doing twice thread 0's work. The program measures when it switched; the timeline
// must show the team's efficiency near 1 before and near 0.75 after, with the switch within
// one interval, in `omprof timeline` and in the Perfetto export.
#include "viewer/timeline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "harness.h"

namespace omprof::test {
namespace {

struct Phases {
  double switch_s = -1, serial_s = -1, end_s = -1, alone_s = -1, balanced_wait_s = -1;
};

Phases phases_of(const std::string& out) {
  Phases p;
  std::istringstream in(out);
  std::string word;
  while (in >> word) {
    if (word == "switch_s") in >> p.switch_s;
    if (word == "serial_s") in >> p.serial_s;
    if (word == "end_s") in >> p.end_s;
    if (word == "alone_s") in >> p.alone_s;
    if (word == "balanced_wait_s") in >> p.balanced_wait_s;
  }
  return p;
}

// Thread lane `t` in interval i: its work as the model counts it (off the CPU outside waits is
// work), its time in the work class, its present time (every class and the off-CPU time), and
// the samples behind it (measured waits have no sampling error: counting only the samples
// overstates the error, never understates it).
struct Cell {
  double work = 0, work_class = 0, present = 0;
  unsigned samples = 0;
};
Cell cell(const nlohmann::json& lane, size_t i) {
  Cell c;
  for (double s : lane["class_s"][i]) c.present += s;
  c.work = lane["work_model_s"][i].get<double>();
  c.work_class = lane["class_s"][i][0].get<double>();
  c.present += lane["off_cpu_s"][i].get<double>();
  c.samples = lane["samples"][i].get<unsigned>();
  return c;
}

class Timeline : public ::testing::TestWithParam<std::string> {};

TEST_P(Timeline, ShowsTheSwitchFromABalancedToAnImbalancedPhaseWithinOneInterval) {
  const std::string dir = fresh_dir("timeline_" + GetParam());
  const RunResult r = run({OMPROF_BIN, "run", "--rate", "1000", "-o", dir, "--",
                           program("omp_timeline_" + GetParam()), "25", "20"},
                          {{"OMP_NUM_THREADS", "2"}});
  ASSERT_EQ(r.status, 0) << r.err;
  const Phases truth = phases_of(r.out);
  ASSERT_GT(truth.switch_s, 0) << r.out;
  const RunResult t = run({OMPROF_BIN, "timeline", "--format", "json", dir});
  ASSERT_EQ(t.status, 0) << t.err;
  const nlohmann::json j = nlohmann::json::parse(t.out);
  const double interval = j["interval_s"].get<double>();
  ASSERT_NEAR(interval, 0.1, 1e-9);
  ASSERT_EQ(j["threads"].size(), 2u) << t.out;
  const nlohmann::json& main = j["threads"][0];
  const nlohmann::json& worker = j["threads"][1];
  ASSERT_TRUE(main["is_main"].get<bool>());
  // The team's efficiency in each phase, over its whole intervals (the first left out: the
  // worker starts in it), with the sampling error of the samples behind it.
  const size_t switch_at = size_t(truth.switch_s / interval);
  auto efficiency = [&](size_t from, size_t to, double& err) {
    double work = 0, present = 0, samples = 0;
    for (size_t i = from; i < to; ++i)
      for (const nlohmann::json* lane : {&main, &worker}) {
        const Cell c = cell(*lane, i);
        work += c.work, present += c.present, samples += c.samples;
      }
    const double e = present > 0 ? work / present : 0;
    err = std::sqrt(std::max(e * (1 - e), 0.01) / std::max(samples, 1.0));
    return e;
  };
  double err1 = 0, err2 = 0;
  const double before = efficiency(1, switch_at, err1);
  const double after = efficiency(switch_at + 1, size_t(truth.end_s / interval), err2);
  std::printf("%s: switch at %.3f s, efficiency %.3f +- %.3f before, %.3f +- %.3f after\n",
              GetParam().c_str(), truth.switch_s, before, err1, after, err2);
  // A VM takes a few percent of a thread's time (off the CPU): 5% beyond sampling.
  EXPECT_GT(before, 0.95 - 3 * err1);
  EXPECT_NEAR(after, 0.75, 3 * err2 + 0.05);
  // The first interval where the main thread works under 75% of its time (designed: 100%,
  // then 50%): the one the switch falls in, or the next (the collector's clock starts a few
  // milliseconds before main).
  size_t first = 0;
  for (size_t i = 1; i < j["intervals"].get<size_t>(); ++i) {
    const Cell c = cell(main, i);
    if (c.present > 0.5 * interval * 1e0 && c.work < 0.75 * c.present) {
      first = i;
      break;
    }
  }
  EXPECT_TRUE(first == switch_at || first == switch_at + 1)
      << "switch at " << truth.switch_s << " s, first imbalanced interval " << first;

  // The Perfetto export: the main thread's work counter drops under 75% at the same interval,
  // and its track has slices of work and of waiting (barrier; not sampled where libgomp's waits
  // sleep).
  const RunResult e = run({OMPROF_BIN, "export", "--format", "perfetto", dir});
  ASSERT_EQ(e.status, 0) << e.err;
  const nlohmann::json trace = nlohmann::json::parse(e.out);
  double drop_us = -1;
  std::set<std::string> slices;
  for (const nlohmann::json& ev : trace["traceEvents"]) {
    if (ev.value("ph", "") == "X" && ev.value("tid", -1) == 0) slices.insert(ev.value("name", ""));
    if (ev.value("ph", "") != "C" || ev.value("name", "") != "thread 0 work %") continue;
    if (drop_us < 0 && ev.value("ts", 0.0) > 0 && ev["args"].value("work", 100.0) < 75)
      drop_us = ev.value("ts", -1.0);
  }
  EXPECT_NEAR(drop_us * 1e-6, double(first) * interval, 1e-6) << e.out.substr(0, 2000);
  EXPECT_TRUE(slices.count("work")) << e.out.substr(0, 2000);
}

// `omprof top --once` while the program runs, once in each phase (1 s balanced, then 2 s with
// thread 1 doing twice thread 0's work): the last whole interval's team work share is near 1,
// then near 0.75; the snapshot names the running process and the parallel regions so far.
TEST_P(Timeline, TopTakenInEachPhaseShowsIt) {
  const std::string dir = fresh_dir("top_" + GetParam());
  RunResult r;
  std::thread job([&] {
    r = run({OMPROF_BIN, "run", "--rate", "1000", "-o", dir, "--",
             program("omp_timeline_" + GetParam()), "50", "20"},
            {{"OMP_NUM_THREADS", "2"}});
  });
  std::vector<nlohmann::json> snapshots;
  // At about 0.7 s (the first phase) and 2.2 s (the second).
  for (double wait_s : {0.7, 1.5}) {
    std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
    const RunResult t = run({OMPROF_BIN, "top", "--once", "--format", "json", dir});
    EXPECT_EQ(t.status, 0) << t.err;
    if (t.status == 0) snapshots.push_back(nlohmann::json::parse(t.out));
  }
  job.join();
  ASSERT_EQ(r.status, 0) << r.err;
  const Phases truth = phases_of(r.out);
  ASSERT_EQ(snapshots.size(), 2u);
  for (const nlohmann::json& s : snapshots) {
    EXPECT_EQ(s.value("running_processes", 0), 1) << s.dump();
    EXPECT_EQ(s.value("threads", 0), 2) << s.dump();
    const double from = s["last_interval"]["start_s"].get<double>();
    const double interval = s["interval_s"].get<double>();
    double work = 0, samples = 0;
    for (const nlohmann::json& l : s["last_interval"]["threads"]) {
      work += l["share"]["work_model"].get<double>() / 2;
      samples += l["samples"].get<double>();
      EXPECT_LT(l["data_age_s"].get<double>(), 1.0) << s.dump();
    }
    const double err = std::sqrt(0.25 / std::max(samples, 1.0));
    std::printf("%s: top at %.1f-%.1f s (switch at %.3f s): team work share %.3f\n",
                GetParam().c_str(), from, from + interval, truth.switch_s, work);
    if (from + interval < truth.switch_s) {
      EXPECT_GT(work, 0.95 - 3 * err) << s.dump();
    } else if (from > truth.switch_s + 0.05) {
      EXPECT_NEAR(work, 0.75, 3 * err + 0.05) << s.dump();
    } else {
      ADD_FAILURE() << "a snapshot's last interval straddles the switch: " << s.dump();
    }
    EXPECT_FALSE(s["parallel_regions"].empty()) << s.dump();
  }
}

// Each thread's timeline, summed over the run, is its time in the profile's model: work (with
// the time off the CPU outside waits, where the model counts it so) and wait (every other class).
// They differ only where the model reads a stack the intervals do not keep (runtime code in a
// work state is overhead): 2% of the thread's time here.
void expect_totals_are_the_profiles(const std::string& dir, const nlohmann::json& timeline) {
  const RunResult r = run({OMPROF_BIN, "report", "--threads", "--format", "json", dir});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  for (const nlohmann::json& lane : timeline["threads"]) {
    double work = 0, wait = 0;
    for (size_t i = 0; i < lane["class_s"].size(); ++i) {
      const Cell c = cell(lane, i);
      work += c.work;
      wait += c.present - c.work;
    }
    const nlohmann::json* row = nullptr;
    for (const nlohmann::json& t : report["threads"])
      if (t["thread"] == lane["thread"]) row = &t;
    ASSERT_NE(row, nullptr) << r.out;
    const double work_s = (*row)["work_s"].get<double>(), wait_s = (*row)["wait_s"].get<double>();
    const double tolerance = 0.02 * (work_s + wait_s) + 0.005;
    std::printf("  thread %d: timeline work %.3f wait %.3f, profile work %.3f wait %.3f\n",
                lane["thread"].get<int>(), work, wait, work_s, wait_s);
    EXPECT_NEAR(work, work_s, tolerance) << "thread " << lane["thread"];
    EXPECT_NEAR(wait, wait_s, tolerance) << "thread " << lane["thread"];
  }
}

// A serial phase (the main thread alone for 2 units, then a region of 1 unit each): on the
// timeline, from the interval after the phase starts, the main thread works all the time and
// the worker idles for as long as the main thread ran alone (the program measures it); before,
// in the imbalanced phase, the worker works all the time. `busy`: beside a competing process,
// with the OpenMP waits sleeping (OMP_WAIT_POLICY=passive): preempted work is still work, and
// waits no sample sees are still waits (measured).
void check_serial_phase(const std::string& compiler, bool busy) {
  const std::string dir = fresh_dir("timeline_serial_" + compiler + (busy ? "_busy" : ""));
  std::map<std::string, std::string> env = {{"OMP_NUM_THREADS", "2"}};
  if (busy) env["OMP_WAIT_POLICY"] = "passive";
  RunResult r;
  {
    std::unique_ptr<BusyProcess> burner(busy ? new BusyProcess : nullptr);
    r = run({OMPROF_BIN, "run", "--rate", "1000", "-o", dir, "--",
             program("omp_timeline_" + compiler), "15", "20", "serial"},
            env);
  }
  ASSERT_EQ(r.status, 0) << r.err;
  const Phases truth = phases_of(r.out);
  const nlohmann::json j =
      nlohmann::json::parse(run({OMPROF_BIN, "timeline", "--format", "json", dir}).out);
  const double interval = j["interval_s"].get<double>();
  const nlohmann::json &main = j["threads"][0], &worker = j["threads"][1];
  // A lane's share of its time in class k (-1: work as the model counts it) over [from, to).
  auto share = [&](const nlohmann::json& lane, int k, size_t from, size_t to, double& samples) {
    double part = 0, present = 0;
    samples = 0;
    for (size_t i = from; i < to; ++i) {
      const Cell c = cell(lane, i);
      part += k < 0 ? c.work : lane["class_s"][i][size_t(k)].get<double>();
      present += c.present, samples += c.samples;
    }
    return present > 0 ? part / present : 0;
  };
  const size_t serial_at = size_t(truth.serial_s / interval);
  const size_t end_at = size_t(truth.end_s / interval);
  ASSERT_GT(end_at, serial_at + 3) << r.out;
  double n = 0;
  const double worker_before =
      share(worker, -1, size_t(truth.switch_s / interval) + 1, serial_at, n);
  EXPECT_GT(worker_before, 0.95 - 3 * std::sqrt(0.05 / std::max(n, 1.0))) << r.out;
  const double main_after = share(main, -1, serial_at + 1, end_at, n);
  EXPECT_GT(main_after, 0.95 - 3 * std::sqrt(0.05 / std::max(n, 1.0)));
  constexpr int kIdle = 4;  // proto/timeline.h
  const double idle_after = share(worker, kIdle, serial_at + 1, end_at, n);
  const double alone = truth.alone_s / (truth.end_s - truth.serial_s);
  const double err = std::sqrt(alone * (1 - alone) / std::max(n, 1.0));
  std::printf(
      "%s%s: serial phase from %.3f s: main works %.3f, the worker idles %.3f "
      "(the program ran alone %.3f of the phase)\n",
      compiler.c_str(), busy ? " (busy, passive)" : "", truth.serial_s, main_after, idle_after,
      alone);
  EXPECT_NEAR(idle_after, alone, 3 * err + 0.05);
  expect_totals_are_the_profiles(dir, j);
}

TEST_P(Timeline, ASerialPhaseShowsTheWorkerIdleFromItsStart) {
  check_serial_phase(GetParam(), false);
}

TEST_P(Timeline, ASerialPhaseOnABusyMachineWithSleepingWaits) {
  check_serial_phase(GetParam(), true);
}

// The call tree of a time range comes from each interval's leads (4 samples picked at random
// per thread and interval): with three designed phases, the main thread's leads in the phase
// functions inside each phase are that phase's code only (balanced, then imbalanced regions),
// and in the serial phase,
// where it spins 2 units alone and then 1 unit in a balanced region each round, 2/3 of its picks
// are alone(), within 3 binomial standard errors of the picks' number.
TEST_P(Timeline, ATimeRangesCallTreeIsWhatRanThen) {
  const std::string dir = fresh_dir("timeline_leads_" + GetParam());
  const RunResult r = run({OMPROF_BIN, "run", "--interval", "20", "-o", dir, "--",
                           program("omp_timeline_" + GetParam()), "10", "20", "serial"},
                          {{"OMP_NUM_THREADS", "2"}});
  ASSERT_EQ(r.status, 0) << r.err;
  const Phases ph = phases_of(r.out);
  const format::Profile p = only_profile(dir);
  viewer::Timeline t;
  const viewer::Model m = viewer::build_model(p, omp::View::kUser);
  viewer::add_to_timeline(t, p, m);
  viewer::finish_timeline(t);
  const viewer::TimelineLane* main_lane = nullptr;
  for (const viewer::TimelineLane& l : t.lanes)
    if (l.is_main) main_lane = &l;
  ASSERT_NE(main_lane, nullptr);
  auto has = [](const viewer::StackRef& s, const std::string& prefix) {
    for (size_t i = 0; i < s.size(); ++i)
      if (std::string(s[i].name).rfind(prefix, 0) == 0) return true;
    return false;
  };
  const double dt = double(t.interval_ns) * 1e-9;
  // The program's clock starts at its main, the timeline's at the collector's start: a margin
  // of one interval on each side of a switch.
  std::map<std::string, double> picks;  // by phase and code
  for (size_t i = 0; i < main_lane->cells.size(); ++i) {
    const double from = double(i) * dt, to = from + dt;
    std::string phase;
    if (to < ph.switch_s - dt) phase = "balanced";
    if (from > ph.switch_s + dt && to < ph.serial_s - dt) phase = "imbalanced";
    if (from > ph.serial_s + dt && to < ph.end_s - dt) phase = "serial";
    if (phase.empty()) continue;
    for (const auto& lead : main_lane->cells[i].leads) {
      // The program's code outside the three phase functions and OpenMP (the process's start-up
      // before main, main's own loop between calls: one lead in about ten runs) ran then too,
      // in no phase; a lead in OpenMP outside them (an idle or overhead frame of the main
      // thread) still counts against its phase.
      if (!has(lead.stack, "balanced") && !has(lead.stack, "imbalanced") &&
          !has(lead.stack, "alone") && !has(lead.stack, "<omp:")) {
        std::string path;
        for (size_t k = 0; k < lead.stack.size(); ++k)
          path += std::string(lead.stack[k].name) + ";";
        std::printf("  %s interval %zu: a lead in no phase function: %s\n", phase.c_str(), i,
                    path.c_str());
        continue;
      }
      picks[phase] += lead.samples;
      // The functions themselves (the main thread's path runs through them, as does its fork).
      if (has(lead.stack, "balanced")) picks[phase + " balanced"] += lead.samples;
      if (has(lead.stack, "imbalanced")) picks[phase + " imbalanced"] += lead.samples;
      if (has(lead.stack, "alone")) picks[phase + " alone"] += lead.samples;
      if (lead.wait) picks[phase + " waiting"] += lead.samples;
      if (phase != "serial" && !has(lead.stack, phase)) {
        std::string path;
        for (size_t k = 0; k < lead.stack.size(); ++k)
          path += std::string(lead.stack[k].name) + ";";
        std::printf("  %s interval %zu: a lead outside %s(): %s (%g samples)\n", phase.c_str(), i,
                    phase.c_str(), path.c_str(), double(lead.samples));
      }
    }
  }
  for (const auto& [key, n] : picks) std::printf("  %s: %.0f picks\n", key.c_str(), n);
  ASSERT_GT(picks["balanced"], 10);
  ASSERT_GT(picks["imbalanced"], 10);
  ASSERT_GT(picks["serial"], 40);
  EXPECT_EQ(picks["balanced balanced"], picks["balanced"]);
  EXPECT_EQ(picks["imbalanced imbalanced"], picks["imbalanced"]);
  EXPECT_EQ(picks["serial imbalanced"], 0);
  // alone() against its share of the main thread's time in the serial phase (2 of 3 units).
  const double n = picks["serial"], share = picks["serial alone"] / n;
  EXPECT_NEAR(share, 2.0 / 3, 3 * std::sqrt(2.0 / 9 / n)) << n << " picks";
  EXPECT_EQ(picks["serial alone"] + picks["serial balanced"], n);
  // In the imbalanced phase the main thread waits at each region's end as long as it works.
  // libomp spins through such a wait (its block time, 200 ms, is longer): its CPU-time samples
  // see it, as waits the exact ones replace, and the tree of the range still shows them. (On
  // libgomp the wait sleeps after a short spin: few CPU-time samples.)
  if (GetParam() == "clang") {
    const double m = picks["imbalanced"], waiting = picks["imbalanced waiting"] / m;
    EXPECT_NEAR(waiting, 0.5, 3 * std::sqrt(0.25 / m)) << m << " picks";
  }
}

// `omprof top --once --format json DIR` snapshots taken every 0.2 s while `job` runs; the last
// one taken while the process ran, and the one after it ended.
struct LiveAndFinal {
  nlohmann::json last_live, final;
  int live_snapshots = 0;
};
LiveAndFinal watch(const std::string& dir, const std::function<void()>& job) {
  LiveAndFinal out;
  std::atomic<bool> done{false};
  std::thread runner([&] {
    job();
    done = true;
  });
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const RunResult t = run({OMPROF_BIN, "top", "--once", "--format", "json", dir});
    if (t.status != 0) continue;  // nothing written yet
    const nlohmann::json s = nlohmann::json::parse(t.out);
    if (s.value("running_processes", 0) == 1) out.last_live = s, ++out.live_snapshots;
  }
  runner.join();
  const RunResult t = run({OMPROF_BIN, "top", "--once", "--format", "json", dir});
  EXPECT_EQ(t.status, 0) << t.err;
  if (t.status == 0) out.final = nlohmann::json::parse(t.out);
  return out;
}

// The run so far in the last live snapshot against the end: each class's thread-seconds can
// only grow, by at most the capacity that passed between them (threads x the elapsed time),
// with the sampling error of the samples behind the run (one sample: 1 ms at --rate 1000).
void expect_final_extends_live(const LiveAndFinal& w) {
  ASSERT_GT(w.live_snapshots, 0);
  const nlohmann::json &live = w.last_live, &end = w.final;
  EXPECT_EQ(end.value("running_processes", -1), 0) << end.dump();
  EXPECT_EQ(end.value("threads", 0), live.value("threads", -1));
  const double live_s = live["elapsed_s"].get<double>(), end_s = end["elapsed_s"].get<double>();
  EXPECT_GE(end_s, live_s);
  const double grown = end["run_thread_s"].get<double>() - live["run_thread_s"].get<double>();
  EXPECT_GE(grown, -0.01);
  const double error = 3 * std::sqrt(live["run_thread_s"].get<double>() * 1e-3) + 0.01;
  auto seconds = [](const nlohmann::json& s, const std::string& name) {
    return s["run"][name].get<double>() * s["run_thread_s"].get<double>();
  };
  // A wait still open at the last snapshot is not measured yet: a live view has its time as
  // off the CPU (its thread present, without samples), the end as the wait it was (a fresh-clone
  // CI run here: off_cpu 0.480 -> 0.286, imbalance 0 -> 0.250 thread-s). So off_cpu may lose
  // what the waiting classes gained.
  double waits_gained = 0;
  for (const auto& [name, share] : end["run"].items())
    if (name != "work" && name != "off_cpu")
      waits_gained += std::max(0.0, seconds(end, name) - seconds(live, name));
  for (const auto& [name, share] : end["run"].items()) {
    const double at_end = seconds(end, name), then = seconds(live, name);
    std::printf("  %s: %.3f thread-s live at %.2f s, %.3f at the end (%.2f s)\n", name.c_str(),
                then, live_s, at_end, end_s);
    EXPECT_GE(at_end, then - error - (name == "off_cpu" ? waits_gained : 0.0)) << name;
    EXPECT_LE(at_end, then + std::max(grown, 0.0) + error) << name;
  }
}

// `omprof top` while a thread waits: one round per phase of 800 ms units, so that in the
// imbalanced phase the main thread waits 800 ms at the region's end for the worker (from
// switch_s + 0.8 s on, the program's clock). A snapshot in that wait shows the main thread in a
// barrier now, for no longer than the program has been in that phase.
TEST_P(Timeline, TopShowsAThreadWaitingNow) {
  const std::string dir = fresh_dir("timeline_now_" + GetParam());
  std::vector<nlohmann::json> waiting;  // snapshots with the main thread in a wait now
  std::vector<double> taken;
  const auto start = std::chrono::steady_clock::now();
  RunResult r;
  std::atomic<bool> done{false};
  std::thread job([&] {
    r = run({OMPROF_BIN, "run", "-o", dir, "--", program("omp_timeline_" + GetParam()), "1", "800"},
            {{"OMP_NUM_THREADS", "2"}});
    done = true;
  });
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    const RunResult t = run({OMPROF_BIN, "top", "--once", "--format", "json", dir});
    if (t.status != 0) continue;
    const nlohmann::json s = nlohmann::json::parse(t.out);
    if (s.value("running_processes", 0) != 1) continue;
    for (const nlohmann::json& l : s["last_interval"]["threads"])
      if (l.value("thread", 99u) == 0 && !l["now"].is_null()) {
        waiting.push_back(l["now"]);
        taken.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
  }
  job.join();
  ASSERT_EQ(r.status, 0) << r.err;
  const Phases ph = phases_of(r.out);
  ASSERT_GE(ph.balanced_wait_s, 0) << r.out;
  std::printf("  switch at %.2f s; the balanced phase's longest wait %.3f s\n", ph.switch_s,
              ph.balanced_wait_s);
  double longest = 0;
  for (size_t k = 0; k < waiting.size(); ++k) {
    const std::string state = waiting[k].value("state", "");
    const double for_s = waiting[k].value("for_s", 0.0);
    std::printf("  at %.2f s: main thread in %s for %.2f s\n", taken[k], state.c_str(), for_s);
    EXPECT_NE(state.find("barrier"), std::string::npos) << state;
    // No wait of the main thread lasts longer than the designed one (0.8 s), nor than the
    // snapshot's time since the imbalanced phase began, or than the longest wait the program
    // measured in the balanced phase (a busy machine, `omprof top` itself included, can hold
    // one of the balanced threads back).
    EXPECT_LT(for_s, 0.8 + 0.2) << state;
    EXPECT_LT(for_s, std::max(taken[k] - ph.switch_s, ph.balanced_wait_s) + 0.1) << state;
    longest = std::max(longest, for_s);
  }
  EXPECT_GT(longest, 0.3) << "a snapshot inside the 0.8 s wait";
}

// The last live snapshot before a program ends agrees with its final profile; and after a
// SIGKILL, the view keeps the dead process's numbers (read from its journal).
TEST(TimelineLive, TheLastSnapshotBeforeTheEndAgreesWithTheProfile) {
  const std::string dir = fresh_dir("top_last");
  const LiveAndFinal w = watch(dir, [&] {
    run({OMPROF_BIN, "run", "--rate", "1000", "-o", dir, "--", program("omp_timeline_clang"), "40",
         "20"},
        {{"OMP_NUM_THREADS", "2"}});
  });
  expect_final_extends_live(w);
}

TEST(TimelineLive, AKilledProcessKeepsItsLastNumbers) {
  const std::string dir = fresh_dir("top_killed");
  RunResult r;
  const LiveAndFinal w = watch(dir, [&] {
    r = run({program("omp_endings_clang"), "kill", "1.5"},
            {{"LD_PRELOAD", OMPROF_LIB}, {"OMPROF_OUTPUT", dir}, {"OMP_NUM_THREADS", "2"}});
  });
  EXPECT_EQ(r.signal, SIGKILL);
  expect_final_extends_live(w);
  // The end's view holds the threads' work as the program designed it: each of the two spun
  // 1.5 s of its own CPU time (to within a 4 ms round) before the kill. On a busy machine the
  // one preempted longer finishes later and the other waits for it at the region's end (a
  // fresh-clone CI run here read 5% imbalance, 6% off the CPU), so the work's share of the
  // thread time is not a property of the program; its seconds are. Within 3% and 0.05 s (10
  // periods at the default 200 Hz): CPU-time sampling is stratified.
  const double work_s =
      w.final["run"]["work"].get<double>() * w.final["run_thread_s"].get<double>();
  std::printf("  work %.3f thread-s, designed 3.0\n", work_s);
  EXPECT_NEAR(work_s, 3.0, 0.03 * 3.0 + 0.05) << w.final.dump();
  const RunResult tl = run({OMPROF_BIN, "timeline", "--format", "json", dir});
  std::string files;
  for (const std::string& f : profiles_in(dir)) files += f + "\n";
  ASSERT_EQ(tl.status, 0) << tl.err << "\nprofiles:\n" << files;  // once empty in a full ctest
  const nlohmann::json j = nlohmann::json::parse(tl.out);
  EXPECT_GE(j["intervals"].get<double>() * j["interval_s"].get<double>(), 1.4) << j.dump();
}

// A wait its thread interrupts to run tasks lies where it was (tests/programs/omp_late_tasks.c):
// thread 1 waits at the region's end barrier for about 0.5 s, then runs tasks there for about
// 0.6 s. Its intervals inside the first span are that wait (measured, or on libgomp its samples
// and its time off the CPU), those inside the second are work: not the wait placed as one piece
// ending at the barrier's end, over the tasks.
TEST_P(Timeline, AWaitThatRanTasksLiesWhereItWas) {
  const std::string dir = fresh_dir("timeline_late_tasks_" + GetParam());
  const RunResult r = run({OMPROF_BIN, "run", "--rate", "1000", "-o", dir, "--",
                           program("omp_late_tasks_" + GetParam()), "2", "500", "150"},
                          {{"OMP_NUM_THREADS", "2"}});
  ASSERT_EQ(r.status, 0) << r.err;
  const RunResult t = run({OMPROF_BIN, "timeline", "--format", "json", dir});
  ASSERT_EQ(t.status, 0) << t.err;
  const nlohmann::json j = nlohmann::json::parse(t.out);
  const double dt = j["interval_s"].get<double>();
  ASSERT_EQ(j["threads"].size(), 2u) << t.out;
  const nlohmann::json& worker = j["threads"][1];
  const size_t intervals = j["intervals"].get<size_t>();
  // The barrier class's share of a worker interval, with the error of the samples behind it.
  auto barrier_share = [&](size_t i, double& err) {
    const Cell c = cell(worker, i);
    const double share = c.present > 0 ? worker["class_s"][i][1].get<double>() / c.present : 0;
    err = std::sqrt(std::max(share * (1 - share), 0.01) / std::max(double(c.samples), 1.0));
    return share;
  };
  std::istringstream out(r.out);
  std::string line;
  int rounds = 0;
  size_t waiting = 0, working = 0;
  while (std::getline(out, line)) {
    double from = 0, tasks_from = 0, tasks_to = 0;
    int round = 0, ran = 0;
    if (std::sscanf(line.c_str(), "round %d wait_from %lf tasks_from %lf tasks_to %lf ran %d",
                    &round, &from, &tasks_from, &tasks_to, &ran) != 5)
      continue;
    ++rounds;
    ASSERT_GT(ran, 0) << line;  // thread 1 ran tasks at the barrier
    // Whole intervals inside each span, one interval from its ends (the run's clock starts a
    // few milliseconds before main's).
    for (size_t i = size_t(from / dt) + 2; double(i + 2) * dt <= tasks_from && i < intervals;
         ++i, ++waiting) {
      double err = 0;
      const double share = barrier_share(i, err);
      EXPECT_GT(share, 0.8 - 3 * err) << GetParam() << " interval " << i << " in " << line;
    }
    for (size_t i = size_t(tasks_from / dt) + 2; double(i + 2) * dt <= tasks_to && i < intervals;
         ++i, ++working) {
      double err = 0;
      const double share = barrier_share(i, err);
      EXPECT_LT(share, 0.2 + 3 * err) << GetParam() << " interval " << i << " in " << line;
    }
  }
  EXPECT_EQ(rounds, 2) << r.out;
  std::printf("%s: %zu waiting and %zu working intervals checked\n", GetParam().c_str(), waiting,
              working);
  EXPECT_GT(waiting, 0u);
  EXPECT_GT(working, 0u);
}

INSTANTIATE_TEST_SUITE_P(Compilers, Timeline, ::testing::Values("clang", "gcc"));

// The HTML page's timeline in headless Chromium: a lane per thread, and a selection of the
// second half of the run gives each thread's work share that `omprof timeline` gives.
TEST(TimelinePage, ChromiumDrawsTheLanesAndASelectionSumsThem) {
  const char* browser = "/usr/bin/chromium";
  if (access(browser, X_OK) != 0) GTEST_SKIP() << "Chromium is not installed";
  const std::string dir = fresh_dir("timeline_page");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", program("omp_timeline_clang"), "10", "20"},
                {{"OMP_NUM_THREADS", "2"}})
                .status,
            0);
  const std::string page = dir + "/view.html";
  ASSERT_EQ(run({OMPROF_BIN, "view", dir, "-o", page}).status, 0);
  const RunResult dom =
      run({browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + dir + "/c",
           "--window-size=1200,900", "--dump-dom", "file://" + page + "#selftest"});
  ASSERT_EQ(dom.status, 0) << dom.err;
  const std::string open = "<pre id=\"selftest\">";
  const size_t at = dom.out.find(open), end = dom.out.find("</pre>", at);
  ASSERT_NE(at, std::string::npos) << dom.out.substr(0, 2000);
  std::string text = dom.out.substr(at + open.size(), end - at - open.size());
  for (size_t q; (q = text.find("&quot;")) != std::string::npos;) text.replace(q, 6, "\"");
  for (size_t q; (q = text.find("&lt;")) != std::string::npos;) text.replace(q, 4, "<");
  for (size_t q; (q = text.find("&gt;")) != std::string::npos;) text.replace(q, 4, ">");
  for (size_t q; (q = text.find("&amp;")) != std::string::npos;) text.replace(q, 5, "&");
  const nlohmann::json result = nlohmann::json::parse(text);
  const nlohmann::json& tl = result.at("timeline");
  EXPECT_EQ(tl.at("lanes").get<int>(), 2);
  EXPECT_GE(tl.at("canvas_height").get<int>(), 2 * 20);
  const nlohmann::json j =
      nlohmann::json::parse(run({OMPROF_BIN, "timeline", "--format", "json", dir}).out);
  ASSERT_EQ(j["intervals"].get<size_t>(), tl.at("intervals").get<size_t>());
  // The call tree follows the selection (the second half: the imbalanced phase).
  EXPECT_EQ(tl.value("tree_title", "").rfind("Call tree of", 0), 0u) << tl.dump();
  bool imbalanced = false, balanced = false;
  for (const nlohmann::json& f : tl.at("tree_frames")) {
    imbalanced |= f.get<std::string>().rfind("<imbalanced:", 0) == 0;
    balanced |= f.get<std::string>().rfind("<balanced:", 0) == 0;
  }
  EXPECT_TRUE(imbalanced) << tl.dump();
  EXPECT_FALSE(balanced) << tl.dump();
  // Rows: the header, then a row per thread: "r0t0", work%, ...
  ASSERT_EQ(tl.at("rows").size(), 3u) << tl.dump();
  for (size_t k = 0; k < 2; ++k) {
    const nlohmann::json& lane = j["threads"][k];
    double work = 0, all = 0;
    for (size_t i = tl.at("from").get<size_t>(); i < j["intervals"].get<size_t>(); ++i) {
      const Cell c = cell(lane, i);
      work += c.work_class, all += c.present;
    }
    const double drawn = std::stod(tl.at("rows")[k + 1][1].get<std::string>());
    EXPECT_NEAR(drawn, 100 * work / all, 0.2) << tl.dump();
  }
}

}  // namespace
}  // namespace omprof::test
