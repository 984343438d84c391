#include "viewer/live_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "omp/states.h"
#include "proto/timeline.h"
#include "viewer/profile_inputs.h"
#include "viewer/scaling_run.h"
#include "viewer/timeline.h"

namespace omprof::viewer {

namespace {

uint64_t now_unix_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

// A lane's newest interval with samples or measured waits (0 if none).
size_t newest_interval(const TimelineLane& l) {
  for (size_t i = l.cells.size(); i-- > 0;)
    if (l.cells[i].holds_data()) return i;
  return 0;
}

// What the thread is doing now when it is inside an MPI call or an OpenMP wait (a blocked
// thread's intervals stop filling: its last interval does not tell), null otherwise.
nlohmann::json now_json(const TimelineLane& l, uint64_t now_ns) {
  if (l.now_state == 0) return nullptr;
  const omp::StateInfo s = omp::describe_state(l.now_state);
  const double since = double(l.start_unix_ns + l.now_since_ns);
  return {{"state", s.pseudo_frame ? s.pseudo_frame : s.name},
          {"for_s", std::max(0.0, (double(now_ns) - since) * 1e-9)}};
}

// Per thread, its last whole interval: the one before its newest (a running thread's newest is
// still filling; a thread that ended keeps its last numbers), and how old its data is.
nlohmann::json lanes_json(const Timeline& t, uint64_t now_ns, double& latest_start_s) {
  nlohmann::json lanes = nlohmann::json::array();
  latest_start_s = 0;
  for (const TimelineLane& l : t.lanes) {
    const size_t newest = newest_interval(l), i = newest > 0 ? newest - 1 : 0;
    const double present = present_ns(t, l, i);
    nlohmann::json shares = nlohmann::json::object();
    for (size_t k = 0; k < journal::kTimelineClasses; ++k)
      shares[kind_name(k)] = present > 0 ? l.cells[i].ns[k] / present : 0.0;
    shares[kind_name(kOffCpuKind)] = present > 0 ? off_cpu_ns(t, l, i) / present : 0.0;
    // The model's work (off the CPU outside waits is work where the profile counts it so).
    shares["work_model"] = present > 0 ? work_ns(t, l, i) / present : 0.0;
    const double start_s = double(i * t.interval_ns) * 1e-9;
    latest_start_s = std::max(latest_start_s, start_s);
    const double newest_end = double(t.origin_unix_ns) + double((newest + 1) * t.interval_ns);
    lanes.push_back({{"rank", l.rank},
                     {"thread", l.thread},
                     {"start_s", start_s},
                     {"present_s", present * 1e-9},
                     {"share", shares},
                     {"samples", l.cells[i].samples},
                     {"data_age_s", std::max(0.0, (double(now_ns) - newest_end) * 1e-9)},
                     {"now", now_json(l, now_ns)}});
  }
  return lanes;
}

nlohmann::json classes_json(const ClassTimes& t) {
  nlohmann::json j = nlohmann::json::object();
  const double total = t.total();
  for (size_t c = 0; c < kLossClasses; ++c)
    j[loss_class_name(LossClass(c))] = total > 0 ? t.ns[c] / total : 0.0;
  return j;
}

nlohmann::json by_key_json(const std::map<std::string, ClassTimes>& m, size_t top) {
  std::vector<std::pair<std::string, const ClassTimes*>> rows;
  for (const auto& [key, t] : m)
    if (!key.empty() && t.total() >= 1e6) rows.emplace_back(key, &t);  // 1 ms or more
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second->total() > b.second->total();
  });
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < rows.size() && i < top; ++i)
    out.push_back({{"name", rows[i].first},
                   {"thread_s", rows[i].second->total() * 1e-9},
                   {"efficiency", rows[i].second->useful() / rows[i].second->total()}});
  return out;
}

// The functions with the most work (a path's leaf), with their share of all work.
nlohmann::json top_functions(const ScalingRun& run, size_t top) {
  std::map<std::string, double> work;
  for (const auto& [path, t] : run.paths) {
    const size_t leaf = path.rfind(';');
    work[path.substr(leaf == std::string::npos ? 0 : leaf + 1)] += t.useful();
  }
  std::vector<std::pair<std::string, double>> rows(work.begin(), work.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const double all = run.all.useful();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < rows.size() && i < top && rows[i].second > 0; ++i)
    out.push_back({{"function", rows[i].first},
                   {"work_s", rows[i].second * 1e-9},
                   {"share", all > 0 ? rows[i].second / all : 0}});
  return out;
}

nlohmann::json slowest_ranks(const ScalingRun& run, size_t top) {
  std::vector<std::pair<double, int>> ranks;
  for (size_t i = 0; i < run.rank_outside_mpi_ns.size() && i < run.rank_ids.size(); ++i)
    ranks.emplace_back(run.rank_outside_mpi_ns[i], run.rank_ids[i]);
  std::sort(ranks.rbegin(), ranks.rend());
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < ranks.size() && i < top; ++i)
    out.push_back({{"rank", ranks[i].second}, {"outside_mpi_s", ranks[i].first * 1e-9}});
  return out;
}

}  // namespace

bool live_snapshot(const std::string& dir, size_t top, nlohmann::json& snapshot, std::string& error,
                   LiveReader& reader) {
  int status = 0;
  const std::vector<std::string> files = expand_profile_arguments({dir}, status);
  if (status || files.empty()) {
    error = dir + ": nothing to read yet (no journal or profile)";
    return false;
  }
  const uint64_t now = now_unix_ns();
  Timeline t;
  size_t running = 0;
  ScalingRun run;
  ScalingRunBuilder builder(dir, "", run);
  bool added = true;
  // Each file read once (a journal of a running process is the costly part of a snapshot).
  for (const std::string& file : files) {
    try {
      const format::Profile p = load_profile(file, reader.symbols, &reader.journals);
      if (p.header.ending().kind() == v1::Ending::ENDING_RUNNING) ++running;
      const Model m = build_model(p, omp::View::kUser);  // the costly part after reading
      add_to_timeline(t, p, m);
      if (added) added = builder.add(m, error);
    } catch (const format::ProfileError& e) {
      tell_unreadable(e, status);
    }
  }
  reader.journals.forget_unused();
  finish_timeline(t);
  if (!added || !builder.finish(error)) return false;
  double latest_start_s = 0;
  nlohmann::json lanes = lanes_json(t, now, latest_start_s);
  snapshot = {{"input", dir},
              {"ranks", run.ranks},
              {"threads", run.threads},
              {"running_processes", running},
              {"elapsed_s", run.elapsed_ns * 1e-9},
              {"interval_s", t.interval_ns * 1e-9},
              {"last_interval", {{"start_s", latest_start_s}, {"threads", std::move(lanes)}}},
              {"run", classes_json(run.all)},
              {"run_thread_s", run.all.total() * 1e-9},
              {"parallel_regions", by_key_json(run.parallel_regions, top)},
              {"regions", by_key_json(run.regions, top)},
              {"functions", top_functions(run, top)},
              {"slowest_ranks", slowest_ranks(run, top)},
              {"notes", t.notes}};
  return true;
}

void write_live_text(std::ostream& out, const nlohmann::json& s) {
  out << fmt::format("omprof top {}: {} rank{} x {} thread{}, {:.1f} s so far, {} running\n",
                     s["input"].get<std::string>(), s["ranks"].get<int>(),
                     s["ranks"].get<int>() == 1 ? "" : "s", s["threads"].get<unsigned>(),
                     s["threads"].get<unsigned>() == 1 ? "" : "s", s["elapsed_s"].get<double>(),
                     s["running_processes"].get<size_t>());
  const nlohmann::json& last = s["last_interval"];
  out << fmt::format(
      "\nEach thread's last whole interval ({:.1f} s long; the newest from {:.1f} s): share of "
      "its time\n",
      s["interval_s"].get<double>(), last["start_s"].get<double>());
  out << "  rank thread  from_s";
  for (const char* c : timeline::kClassNames) out << fmt::format(" {:>8}", c);
  out << "  off_cpu  age_s  now\n";
  for (const nlohmann::json& l : last["threads"]) {
    out << fmt::format("  {:4} {:6} {:7.1f}", l["rank"].get<int>(), l["thread"].get<unsigned>(),
                       l["start_s"].get<double>());
    for (const char* c : timeline::kClassNames)
      out << fmt::format(" {:7.0f}%", 100 * l["share"][c].get<double>());
    out << fmt::format(" {:8.0f}% {:6.1f}", 100 * l["share"]["off_cpu"].get<double>(),
                       l["data_age_s"].get<double>());
    const nlohmann::json& now = l["now"];
    if (!now.is_null())
      out << fmt::format("  in {} for {:.1f} s", now["state"].get<std::string>(),
                         now["for_s"].get<double>());
    out << "\n";
  }
  out << "\nThe run so far, share of the capacity (ranks x threads x elapsed):";
  for (const auto& [name, share] : s["run"].items())
    out << fmt::format(" {} {:.1f}%", name, 100 * share.get<double>());
  out << "\n";
  auto table = [&](const char* title, const nlohmann::json& rows) {
    if (rows.empty()) return;
    out << "\n" << title << " (thread-s, efficiency: work / thread time)\n";
    for (const nlohmann::json& r : rows)
      out << fmt::format("  {:9.3f} {:5.2f}  {}\n", r["thread_s"].get<double>(),
                         r["efficiency"].get<double>(), r["name"].get<std::string>());
  };
  table("Parallel regions", s["parallel_regions"]);
  table("Explicit regions", s["regions"]);
  out << "\nFunctions with the most work (user model)\n";
  for (const nlohmann::json& f : s["functions"])
    out << fmt::format("  {:9.3f} s {:5.1f}%  {}\n", f["work_s"].get<double>(),
                       100 * f["share"].get<double>(), f["function"].get<std::string>());
  if (s["slowest_ranks"].size() > 1) {
    out << "\nSlowest ranks (time outside MPI)\n";
    for (const nlohmann::json& r : s["slowest_ranks"])
      out << fmt::format("  rank {:4} {:9.3f} s\n", r["rank"].get<int>(),
                         r["outside_mpi_s"].get<double>());
  }
  for (const nlohmann::json& n : s["notes"]) out << "note: " << n.get<std::string>() << "\n";
}

}  // namespace omprof::viewer
