// pprof's profile.proto (proto/pprof.proto), gzip'd as `go tool pprof` expects. Functions and
// locations come from the view's frames (names, files and lines are already resolved, so the
// one mapping says so and pprof never tries to symbolize); identical samples are merged.
#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "pprof.pb.h"
#include "viewer/export.h"

namespace omprof::viewer {

namespace {

namespace pp = perftools::profiles;

// pprof drops "<...>" from names as C++ template arguments, which would leave omprof's pseudo
// frames ("<omp:barrier>", "<solve: omp parallel @ heat.c:42>") nameless: bracket them instead.
std::string pprof_name(const std::string& name) {
  if (name.size() >= 2 && name.front() == '<' && name.back() == '>')
    return "[" + name.substr(1, name.size() - 2) + "]";
  return name;
}

class PprofExporter : public Exporter {
 public:
  PprofExporter() {
    str("");  // string_table[0] is always ""
    auto* samples = out_.add_sample_type();
    samples->set_type(str("samples"));
    samples->set_unit(str("count"));
    auto* time = out_.add_sample_type();
    time->set_type(str("time"));
    time->set_unit(str("nanoseconds"));
    out_.set_default_sample_type(str("time"));
  }

  void add(const format::Profile& p, const Model& m) override {
    const v1::Header& h = p.header;
    if (profiles_++ == 0) {
      auto* pt = out_.mutable_period_type();
      pt->set_type(str(h.clock() == v1::CLOCK_WALL ? "wall" : "cpu"));
      pt->set_unit(str("nanoseconds"));
      out_.set_period(int64_t(h.period_ns()));
      out_.set_time_nanos(int64_t(h.start_time_unix_ns()));
      auto* map = out_.add_mapping();
      map->set_id(1);
      map->set_filename(str(h.program()));
      map->set_has_functions(true);
      map->set_has_filenames(true);
      map->set_has_line_numbers(true);
      map->set_has_inline_frames(true);
      // Counter events (format 1.16): one sample type each, the first profile's events.
      for (const std::string& e : h.counter_event()) {
        auto* type = out_.add_sample_type();
        type->set_type(str(e));
        type->set_unit(str("count"));
        events_.push_back(e);
      }
    }
    std::vector<int> value_of;  // this profile's event i -> its value's index (-1: none)
    for (const std::string& e : h.counter_event()) {
      const auto it = std::find(events_.begin(), events_.end(), e);
      value_of.push_back(it == events_.end() ? -1 : int(2 + (it - events_.begin())));
    }
    out_.set_duration_nanos(std::max<int64_t>(out_.duration_nanos(), int64_t(h.duration_ns())));
    for (const ViewSample& s : m.samples) {
      const bool counted =
          std::any_of(s.counters.begin(), s.counters.end(), [](uint64_t c) { return c != 0; });
      if (!s.count && !s.weight_ns && !counted) continue;
      const SampleLabels l = labels_of(p, s);
      std::vector<uint64_t> ids;
      ids.reserve(s.stack.size());
      for (const omp::Frame& f : s.stack) ids.push_back(location(f));
      pp::Sample& dst = sample(ids, l);
      dst.set_value(0, dst.value(0) + int64_t(s.count));
      dst.set_value(1, dst.value(1) + int64_t(s.weight_ns));
      for (size_t e = 0; e < value_of.size() && e < s.counters.size(); ++e)
        if (value_of[e] >= 0)
          dst.set_value(value_of[e], dst.value(value_of[e]) + int64_t(s.counters[e]));
    }
  }

  void write(std::ostream& out) override {
    out_.add_comment(str("omprof export: " + std::to_string(profiles_) + " profile(s)"));
    google::protobuf::io::OstreamOutputStream raw(&out);
    google::protobuf::io::GzipOutputStream::Options o;
    o.format = google::protobuf::io::GzipOutputStream::GZIP;
    google::protobuf::io::GzipOutputStream gz(&raw, o);
    out_.SerializeToZeroCopyStream(&gz);
    gz.Close();
  }

 private:
  int64_t str(const std::string& s) {
    auto [it, added] = strings_.emplace(s, int64_t(strings_.size()));
    if (added) out_.add_string_table(s);
    return it->second;
  }

  uint64_t function(const omp::Frame& f) {
    auto [it, added] = functions_.emplace(std::make_pair(f.name, f.file), functions_.size() + 1);
    if (added) {
      pp::Function* fn = out_.add_function();
      fn->set_id(it->second);
      fn->set_name(str(pprof_name(f.name)));
      fn->set_system_name(str(f.name));
      fn->set_filename(str(f.file));
    }
    return it->second;
  }

  uint64_t location(const omp::Frame& f) {
    const uint64_t fid = function(f);
    auto [it, added] = locations_.emplace(std::make_pair(fid, f.line), locations_.size() + 1);
    if (added) {
      pp::Location* loc = out_.add_location();
      loc->set_id(it->second);
      loc->set_mapping_id(1);
      loc->set_address(it->second);  // synthetic, unique: the frames are already resolved
      pp::Line* line = loc->add_line();
      line->set_function_id(fid);
      line->set_line(f.line);
    }
    return it->second;
  }

  void label_num(pp::Sample& s, const char* key, int64_t num, const char* unit) {
    pp::Label* l = s.add_label();
    l->set_key(str(key));
    l->set_num(num);
    l->set_num_unit(str(unit));  // with a unit, pprof keeps num = 0 (thread 0, rank 0)
  }

  void label_str(pp::Sample& s, const char* key, const std::string& value) {
    pp::Label* l = s.add_label();
    l->set_key(str(key));
    l->set_str(str(value));
  }

  pp::Sample& sample(const std::vector<uint64_t>& ids, const SampleLabels& l) {
    std::string key(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(uint64_t));
    key += '\0' + std::to_string(l.rank) + ',' + std::to_string(l.thread) + ',' +
           std::to_string(l.tid) + ',' + l.state + '\0' + l.region;
    auto [it, added] = samples_.emplace(std::move(key), out_.sample_size());
    if (!added) return *out_.mutable_sample(int(it->second));
    pp::Sample* s = out_.add_sample();
    for (uint64_t id : ids) s->add_location_id(id);
    for (size_t v = 0; v < 2 + events_.size(); ++v) s->add_value(0);
    if (l.rank >= 0) label_num(*s, "rank", l.rank, "rank");
    label_num(*s, "thread", l.thread, "thread");
    label_num(*s, "tid", int64_t(l.tid), "tid");
    label_str(*s, "omp_state", l.state);
    if (!l.region.empty()) label_str(*s, "region", l.region);
    return *s;
  }

  pp::Profile out_;
  size_t profiles_ = 0;
  std::vector<std::string> events_;  // counter events, values 2, 3, ... of every sample
  std::unordered_map<std::string, int64_t> strings_;
  std::map<std::pair<std::string, std::string>, uint64_t> functions_;
  std::map<std::pair<uint64_t, int64_t>, uint64_t> locations_;
  std::unordered_map<std::string, int> samples_;
};

}  // namespace

std::unique_ptr<Exporter> make_pprof_exporter() {
  return std::make_unique<PprofExporter>();
}

}  // namespace omprof::viewer
