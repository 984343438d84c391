#include "viewer/scaling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>

namespace omprof::viewer {

namespace {

using Classes = std::initializer_list<LossClass>;

double sum_of(const ClassTimes& t, Classes cs) {
  double s = 0;
  for (LossClass c : cs) s += t.at(c);
  return s;
}

bool holds(Classes cs, LossClass c) {
  return std::find(cs.begin(), cs.end(), c) != cs.end();
}

// The sampled parts of a run are one multinomial draw: n samples spread the sampled time S
// (each thread's CPU time, known) over the classes, class c with share p_c, so that
// cov(x_c, x_d) = S^2 / n (p_c [c = d] - p_c p_d). A function with gradient g then has the
// variance S^2 / n (sum g_c^2 p_c - (sum g_c p_c)^2) (the delta method).
double multinomial_var(const ClassTimes& t, uint64_t n, const std::array<double, kLossClasses>& g) {
  const double s = t.sampled_total();
  if (n == 0 || s <= 0) return 0;
  double g2p = 0, gp = 0;
  for (size_t c = 0; c < kLossClasses; ++c) {
    const double p = t.sampled[c] / s;
    g2p += g[c] * g[c] * p;
    gp += g[c] * p;
  }
  return std::max(0.0, s * s / double(n) * (g2p - gp * gp));
}

// a / b, a the sum of classes `top` and b of `bottom` (which holds `top`): the gradient is
// (1[c in top] - a/b) / b on the classes of `bottom`.
Factor share(const ClassTimes& t, uint64_t n, Classes top, Classes bottom) {
  const double b = sum_of(t, bottom);
  if (b <= 0) return {1, 0};
  const double f = sum_of(t, top) / b;
  std::array<double, kLossClasses> g{};
  for (LossClass c : bottom) g[size_t(c)] = ((holds(top, c) ? 1.0 : 0.0) - f) / b;
  return {f, std::sqrt(multinomial_var(t, n, g))};
}

Factor product(Factor a, Factor b) {
  const double v = a.value * b.value;
  const double ra = a.value ? a.error / a.value : 0, rb = b.value ? b.error / b.value : 0;
  return {v, std::fabs(v) * std::sqrt(ra * ra + rb * rb)};
}

// Relative variance of a run's useful time.
double useful_rel_var(const ScalingRun& r) {
  std::array<double, kLossClasses> g{};
  g[size_t(LossClass::kWork)] = 1;
  const double w = r.all.useful();
  return w > 0 ? multinomial_var(r.all, r.samples, g) / (w * w) : 0;
}

// Variance of the time at one key of a run (all its classes): a share q of the sampled time.
double key_var(const ClassTimes& key, const ScalingRun& r) {
  const double s = r.all.sampled_total();
  if (s <= 0 || r.samples == 0) return 0;
  const double q = key.sampled_total() / s;
  return s * s / double(r.samples) * q * (1 - q);
}

constexpr LossClass kWork = LossClass::kWork, kOff = LossClass::kOffCpu,
                    kSerial = LossClass::kSerial, kImb = LossClass::kImbalance,
                    kOver = LossClass::kOverhead, kSync = LossClass::kSync, kMpi = LossClass::kMpi;

}  // namespace

double ideal_scale(const ScalingRun& run, const ScalingRun& ref, ScalingKind kind) {
  if (kind == ScalingKind::kStrong || ref.cores() == 0) return 1;
  return double(run.cores()) / double(ref.cores());
}

MetricTree metric_tree(const ScalingRun& run, const ScalingRun& ref, ScalingKind kind) {
  const ClassTimes& t = run.all;
  const uint64_t n = run.samples;
  MetricTree m;
  m.mpi_parallel = share(t, n, {kWork, kOff, kSerial, kImb, kOver, kSync},
                         {kWork, kOff, kSerial, kImb, kOver, kSync, kMpi});
  const auto& out = run.rank_outside_mpi_ns;
  double max_out = 0, sum_out = 0;
  for (double o : out) {
    max_out = std::max(max_out, o);
    sum_out += o;
  }
  m.mpi_load_balance = {max_out > 0 ? sum_out / double(out.size()) / max_out : 1, 0};
  m.communication = {
      m.mpi_load_balance.value > 0 ? m.mpi_parallel.value / m.mpi_load_balance.value : 1,
      m.mpi_parallel.error};
  m.serial =
      share(t, n, {kWork, kOff, kImb, kOver, kSync}, {kWork, kOff, kSerial, kImb, kOver, kSync});
  m.omp_load_balance = share(t, n, {kWork, kOff, kOver, kSync}, {kWork, kOff, kImb, kOver, kSync});
  m.runtime = share(t, n, {kWork, kOff, kSync}, {kWork, kOff, kOver, kSync});
  m.synchronization = share(t, n, {kWork, kOff}, {kWork, kOff, kSync});
  m.omp_parallel = share(t, n, {kWork, kOff}, {kWork, kOff, kSerial, kImb, kOver, kSync});
  m.on_cpu = share(t, n, {kWork}, {kWork, kOff});
  m.parallel = share(t, n, {kWork}, {kWork, kOff, kSerial, kImb, kOver, kSync, kMpi});
  const double w = t.useful(), w_ref = ref.all.useful() * ideal_scale(run, ref, kind);
  if (w > 0 && w_ref > 0) {
    const double c = w_ref / w;
    m.computation = {c, c * std::sqrt(useful_rel_var(run) + useful_rel_var(ref))};
  } else {
    m.computation = {1, 0};
  }
  m.global = product(m.parallel, m.computation);
  m.speedup = run.elapsed_ns > 0 ? ref.elapsed_ns / run.elapsed_ns : 0;
  return m;
}

Loss loss_at(const std::string& key, const ClassTimes* now, const ClassTimes* ref,
             const ScalingRun& run, const ScalingRun& reference, double scale) {
  Loss l;
  l.key = key;
  double var = 0;
  if (now) {
    l.now = *now;
    var += key_var(*now, run);
  }
  if (ref) {
    for (size_t i = 0; i < kLossClasses; ++i) {
      l.ref.ns[i] = ref->ns[i] * scale;
      l.ref.sampled[i] = ref->sampled[i] * scale;
    }
    var += scale * scale * key_var(*ref, reference);
  }
  l.error = std::sqrt(var);
  return l;
}

std::vector<Loss> losses(const std::map<std::string, ClassTimes>& now,
                         const std::map<std::string, ClassTimes>& ref, const ScalingRun& run,
                         const ScalingRun& reference, double scale) {
  std::map<std::string, Loss> by_key;
  for (const auto& [key, t] : now) {
    const auto r = ref.find(key);
    by_key[key] = loss_at(key, &t, r == ref.end() ? nullptr : &r->second, run, reference, scale);
  }
  for (const auto& [key, t] : ref)
    if (!now.count(key)) by_key[key] = loss_at(key, nullptr, &t, run, reference, scale);
  std::vector<Loss> out;
  out.reserve(by_key.size());
  for (auto& [key, l] : by_key) out.push_back(std::move(l));
  std::stable_sort(out.begin(), out.end(),
                   [](const Loss& a, const Loss& b) { return a.total() > b.total(); });
  return out;
}

namespace {

std::string label_of(const ScalingRun& r) {
  return fmt::format("{}x{}", r.ranks, r.threads);
}

// Column labels: "ranks x threads", with "#2" where a configuration repeats.
std::vector<std::string> run_labels(const std::vector<ScalingRun>& runs) {
  std::vector<std::string> labels;
  for (const ScalingRun& r : runs) {
    std::string l = label_of(r);
    const auto seen = std::count_if(labels.begin(), labels.end(), [&](const std::string& x) {
      return x == l || x.rfind(l + "#", 0) == 0;
    });
    if (seen) l += fmt::format("#{}", seen + 1);
    labels.push_back(l);
  }
  return labels;
}

struct MetricRow {
  const char* name;
  Factor MetricTree::*factor;
};
const MetricRow kMetricRows[] = {
    {"global efficiency", &MetricTree::global},
    {"  parallel efficiency", &MetricTree::parallel},
    {"    MPI parallel efficiency", &MetricTree::mpi_parallel},
    {"      MPI load balance", &MetricTree::mpi_load_balance},
    {"      MPI communication efficiency", &MetricTree::communication},
    {"    OpenMP parallel efficiency", &MetricTree::omp_parallel},
    {"      serial-region efficiency", &MetricTree::serial},
    {"      OpenMP load balance", &MetricTree::omp_load_balance},
    {"      runtime efficiency", &MetricTree::runtime},
    {"      synchronization efficiency", &MetricTree::synchronization},
    {"    on-CPU efficiency", &MetricTree::on_cpu},
    {"  computation scalability", &MetricTree::computation},
};

std::string trimmed(const char* name) {
  std::string s(name);
  return s.substr(s.find_first_not_of(' '));
}

}  // namespace

Table metric_table(const std::vector<ScalingRun>& runs, const std::vector<MetricTree>& trees,
                   Format format) {
  const bool text = format == Format::kText;
  std::vector<std::string> columns = {"<metric"};
  const std::vector<std::string> labels = run_labels(runs);
  for (const std::string& l : labels) columns.push_back(l);
  if (!text)
    for (const std::string& l : labels) columns.push_back(l + "_err");
  Table t(columns);
  t.colour_below(0.8, 1, labels.size());
  for (const MetricRow& row : kMetricRows) {
    std::vector<std::string> cells = {text ? std::string(row.name) : trimmed(row.name)};
    for (const MetricTree& m : trees) {
      const Factor f = m.*row.factor;
      cells.push_back(!text               ? fmt::format("{:.5f}", f.value)
                      : f.error >= 0.0005 ? fmt::format("{:.3f}±{:.3f}", f.value, f.error)
                                          : fmt::format("{:.3f}", f.value));
    }
    if (!text)
      for (const MetricTree& m : trees)
        cells.push_back(fmt::format("{:.5f}", (m.*row.factor).error));
    t.row(cells);
  }
  return t;
}

Table runs_table(const std::vector<ScalingRun>& runs, const std::vector<MetricTree>& trees) {
  Table t({"<run", "ranks", "threads", "elapsed_s", "speedup", "useful_thread_s",
           "capacity_thread_s", "samples", "<input"});
  const std::vector<std::string> labels = run_labels(runs);
  for (size_t i = 0; i < runs.size(); ++i) {
    const ScalingRun& r = runs[i];
    t.row({labels[i], std::to_string(r.ranks), std::to_string(r.threads), seconds(r.elapsed_ns),
           fmt::format("{:.3f}", trees[i].speedup), seconds(r.all.useful()), seconds(r.all.total()),
           std::to_string(r.samples), r.input});
  }
  return t;
}

Table loss_table(const std::vector<Loss>& rows, double capacity_ns, size_t top,
                 const char* key_column, Format format) {
  // Text reads in milliseconds; CSV and JSON keep nanosecond sums to the microsecond.
  const bool text = format == Format::kText;
  const auto secs = [text](double ns) {
    return text ? fmt::format("{:+.3f}", ns * 1e-9) : fmt::format("{:.6f}", ns * 1e-9);
  };
  std::vector<std::string> columns = {"loss_s", "loss%", "err_s"};
  for (size_t c = 0; c < kLossClasses; ++c)
    columns.push_back(std::string(loss_class_name(LossClass(c))) + "_s");
  columns.insert(columns.end(), {"now_s", "ideal_s", std::string("<") + key_column});
  Table t(columns);
  size_t n = 0;
  for (const Loss& l : rows) {
    // Text: rows that neither lose nor gain a tenth of a percent are noise to a reader.
    if (text && rows.size() > 1 && std::fabs(l.total()) < 1e-3 * capacity_ns) continue;
    if (top && n++ >= top) break;
    std::vector<std::string> cells = {
        secs(l.total()), fmt::format(text ? "{:+.1f}" : "{:.4f}", 100 * l.total() / capacity_ns),
        fmt::format(text ? "{:.3f}" : "{:.6f}", l.error * 1e-9)};
    for (size_t c = 0; c < kLossClasses; ++c) cells.push_back(secs(l.of(LossClass(c))));
    cells.push_back(fmt::format(text ? "{:.3f}" : "{:.6f}", l.now.total() * 1e-9));
    cells.push_back(fmt::format(text ? "{:.3f}" : "{:.6f}", l.ref.total() * 1e-9));
    cells.push_back(l.key.empty() ? std::string("(no region)") : l.key);
    t.row(cells);
  }
  return t;
}

size_t smallest_run(const std::vector<ScalingRun>& runs, size_t count) {
  size_t best = 0;
  for (size_t i = 1; i < count && i < runs.size(); ++i)
    if (runs[i].cores() < runs[best].cores()) best = i;
  return best;
}

ScalingAnalysis analyse_scaling(std::vector<ScalingRun> runs, ScalingKind kind, size_t reference) {
  ScalingAnalysis a;
  a.kind = kind;
  a.runs = std::move(runs);
  a.reference = reference;
  if (reference >= a.runs.size()) a.reference = smallest_run(a.runs, a.runs.size());
  for (const ScalingRun& r : a.runs) a.trees.push_back(metric_tree(r, a.runs[a.reference], kind));
  a.labels = run_labels(a.runs);
  return a;
}

Loss whole_loss(const ScalingAnalysis& a, size_t i) {
  const ScalingRun &run = a.runs[i], &ref = a.runs[a.reference];
  return loss_at("(whole program)", &run.all, &ref.all, run, ref, ideal_scale(run, ref, a.kind));
}

nlohmann::json scaling_page_json(const ScalingAnalysis& a, size_t largest) {
  const ScalingRun &run = a.runs[largest], &ref = a.runs[a.reference];
  const double scale = ideal_scale(run, ref, a.kind);
  const double capacity = run.all.total();
  nlohmann::json j;
  j["kind"] = a.kind == ScalingKind::kStrong ? "strong" : "weak";
  j["labels"] = a.labels;
  j["reference"] = a.labels[a.reference];
  j["largest"] = a.labels[largest];
  j["runs"] = runs_table(a.runs, a.trees).to_json();
  j["metrics"] = metric_table(a.runs, a.trees, Format::kJson).to_json();
  j["total"] = loss_table({whole_loss(a, largest)}, capacity, 0, "whole", Format::kJson).to_json();
  j["parallel_regions"] =
      loss_table(losses(run.parallel_regions, ref.parallel_regions, run, ref, scale), capacity, 50,
                 "parallel_region", Format::kJson)
          .to_json();
  j["regions"] = loss_table(losses(run.regions, ref.regions, run, ref, scale), capacity, 50,
                            "region", Format::kJson)
                     .to_json();
  return j;
}

std::string series_problem(const std::vector<ScalingRun>& runs, const std::string& region) {
  if (runs.size() < 2) return "scaling needs two runs or more (one omprof run -o DIR each)";
  const auto base = [](const std::string& p) { return p.substr(p.rfind('/') + 1); };
  for (const ScalingRun& r : runs) {
    if (base(r.program) != base(runs[0].program))
      return fmt::format("{} and {} are runs of different programs ({} and {})", runs[0].input,
                         r.input, base(runs[0].program), base(r.program));
    if (r.region_paths != runs[0].region_paths && region.empty()) {
      std::string only;
      for (const std::string& p : r.region_paths)
        if (!runs[0].region_paths.count(p)) only = p;
      for (const std::string& p : runs[0].region_paths)
        if (!r.region_paths.count(p)) only = p;
      return fmt::format("{} and {} have different explicit regions (only one has '{}')",
                         runs[0].input, r.input, only);
    }
  }
  return "";
}

}  // namespace omprof::viewer
