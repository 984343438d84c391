#include "proto/profile_reader.h"

#include <fcntl.h>
#include <google/protobuf/stubs/logging.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "proto/format.h"

namespace omprof::format {

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw ProfileError(name + ": " + what);
}

bool read_varint(const std::string& b, size_t& pos, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= b.size()) return false;
    uint8_t c = uint8_t(b[pos++]);
    out |= uint64_t(c & 0x7f) << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}

// Ids of each table are 1, 2, 3, ... in file order: memory grows with the records the file
// holds, never with a number written in it.
template <typename T>
void place(std::vector<T>& vec, const T& msg, uint64_t id, const std::string& name,
           const char* kind) {
  if (id != vec.size() + 1)
    fail(name, std::string("corrupt profile: ") + kind + " id " + std::to_string(id) + " where " +
                   std::to_string(vec.size() + 1) + " was due");
  vec.push_back(msg);
}

// Sums the viewer will take of counts and weights: none may wrap around.
void check_sums(const Profile& p) {
  uint64_t all_weight = 0, all_count = 0;
  auto add = [&](uint64_t& sum, uint64_t v) {
    if (__builtin_add_overflow(sum, v, &sum))
      fail(p.path, "corrupt profile: sample counts or weights overflow");
  };
  for (const auto& [index, t] : p.threads) {
    for (const auto& s : t.sample()) {
      add(all_weight, s.weight_ns());
      add(all_count, s.count());
    }
    for (const auto& s : t.wait()) {
      add(all_weight, s.weight_ns());
      add(all_count, s.count());
    }
    add(all_weight, t.dropped_weight_ns());
    add(all_count, t.dropped_samples());
    add(all_weight, t.cpu_time_ns());
  }
  // Region statistics are signed; summed over threads and nodes, their magnitudes must stay far
  // from int64 limits, and times and calls cannot be negative (self times can, by a clock step).
  uint64_t magnitude = 0;
  constexpr uint64_t kLimit = uint64_t(1) << 62;
  for (const auto& r : p.region_stats) {
    if (r.calls() < 0 || r.wall_ns() < 0 || r.cpu_ns() < 0)
      fail(p.path, "corrupt profile: negative region statistics");
    for (int64_t v : {r.calls(), r.wall_ns(), r.cpu_ns(), r.self_wall_ns(), r.self_cpu_ns()}) {
      const uint64_t m = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
      add(magnitude, m);
      if (magnitude > kLimit) fail(p.path, "corrupt profile: region statistics overflow");
    }
  }
}

void check_references(const Profile& p) {
  const std::string& n = p.path;
  auto bad = [&](const std::string& what) { fail(n, "corrupt profile: " + what); };
  auto str_ok = [&](uint64_t i) { return i < p.strings.size(); };
  for (size_t i = 0; i < p.mappings.size(); ++i)
    if (p.mappings[i].id() != i + 1 || !str_ok(p.mappings[i].filename()) ||
        !str_ok(p.mappings[i].build_id()))
      bad("mapping table");
  for (size_t i = 0; i < p.functions.size(); ++i) {
    const auto& f = p.functions[i];
    if (f.id() != i + 1 || !str_ok(f.name()) || !str_ok(f.filename()) || !str_ok(f.system_name()))
      bad("function table");
  }
  for (size_t i = 0; i < p.locations.size(); ++i) {
    const auto& l = p.locations[i];
    if (l.id() != i + 1 || l.mapping_id() > p.mappings.size() || !str_ok(l.callee()))
      bad("location table");
    for (const auto& line : l.line())
      if (line.function_id() == 0 || line.function_id() > p.functions.size())
        bad("location refers to a missing function");
  }
  for (size_t i = 0; i < p.stacks.size(); ++i) {
    if (p.stacks[i].id() != i + 1) bad("stack table");
    for (uint64_t loc : p.stacks[i].location_id())
      if (loc == 0 || loc > p.locations.size()) bad("stack refers to a missing location");
  }
  for (size_t i = 0; i < p.forks.size(); ++i) {
    const auto& f = p.forks[i];
    // Enclosing regions come first: chains end, and cannot loop.
    // A region's enclosing context is a region (a task's may be either).
    if (f.id() != i + 1 || f.stack_id() > p.stacks.size() || f.parent_id() >= f.id() ||
        f.codeptr_location_id() > p.locations.size() ||
        (!f.task() && f.parent_id() && p.forks[f.parent_id() - 1].task()))
      bad("fork record table");
  }
  for (size_t i = 0; i < p.region_nodes.size(); ++i) {
    const auto& r = p.region_nodes[i];
    if (r.id() != i + 1 || r.parent_id() >= r.id() || !str_ok(r.name())) bad("region table");
  }
  for (const auto& r : p.region_stats)
    if (r.node_id() == 0 || r.node_id() > p.region_nodes.size()) bad("region statistics");
  // A task origin names a task record; a sample's region, a parallel one.
  auto is_task = [&](uint64_t id) {
    return id >= 1 && id <= p.forks.size() && p.forks[id - 1].task();
  };
  for (const auto& [index, t] : p.threads)
    for (const auto& s : t.sample())
      if (s.stack_id() == 0 || s.stack_id() > p.stacks.size() || s.fork_id() > p.forks.size() ||
          s.region_node() > p.region_nodes.size() || (s.fork_id() && is_task(s.fork_id())) ||
          (s.task_origin_id() && !is_task(s.task_origin_id())))
        bad("sample refers to a missing stack or region");
  for (const auto& [index, t] : p.threads)
    for (const auto& s : t.wait())
      if (s.stack_id() == 0 || s.stack_id() > p.stacks.size() || s.fork_id() > p.forks.size() ||
          s.region_node() > p.region_nodes.size() || (s.fork_id() && is_task(s.fork_id())) ||
          (s.task_origin_id() && !is_task(s.task_origin_id())))
        bad("wait refers to a missing stack or region");
  check_sums(p);
}

}  // namespace

// One record of the file, the `records`-th, into the profile.
static void add_record(Profile& p, const v1::Record& rec, const std::string& name, uint64_t records,
                       bool& have_header, bool& have_trailer) {
  switch (rec.kind_case()) {
    case v1::Record::kHeader:
      if (have_header) fail(name, "corrupt profile: two headers");
      have_header = true;
      p.header = rec.header();
      if (p.header.format_major() == 0) fail(name, "corrupt profile: format version 0");
      if (p.header.format_major() > format::kMajor)
        fail(name, "written by a newer omprof (format " + std::to_string(p.header.format_major()) +
                       ", this reader supports " + std::to_string(format::kMajor) + ")");
      break;
    case v1::Record::kStrings:
      for (const auto& s : rec.strings().entries()) p.strings.push_back(s);
      break;
    case v1::Record::kMapping:
      place(p.mappings, rec.mapping(), rec.mapping().id(), name, "mapping");
      break;
    case v1::Record::kFunction:
      place(p.functions, rec.function(), rec.function().id(), name, "function");
      break;
    case v1::Record::kLocation:
      place(p.locations, rec.location(), rec.location().id(), name, "location");
      break;
    case v1::Record::kStack:
      place(p.stacks, rec.stack(), rec.stack().id(), name, "stack");
      break;
    case v1::Record::kFork:
      place(p.forks, rec.fork(), rec.fork().id(), name, "fork record");
      break;
    case v1::Record::kRegionNode:
      place(p.region_nodes, rec.region_node(), rec.region_node().id(), name, "region node");
      break;
    case v1::Record::kRegionStats:
      p.region_stats.push_back(rec.region_stats());
      break;
    case v1::Record::kThread: {
      auto [it, fresh] = p.threads.try_emplace(rec.thread().index(), rec.thread());
      if (!fresh) it->second.MergeFrom(rec.thread());
      break;
    }
    case v1::Record::kTrailer:
      have_trailer = true;
      p.trailer = rec.trailer();
      if (p.trailer.record_count() != records)
        fail(name, "corrupt profile: trailer counts " + std::to_string(p.trailer.record_count()) +
                       " records, found " + std::to_string(records));
      break;
    default:
      break;  // a record kind from a newer minor version: skip it
  }
}

Profile parse_profile(const std::string& b, const std::string& name) {
  if (b.empty()) fail(name, "empty file, not an omprof profile");
  if (b.compare(0, format::kMagic.size(), format::kMagic) != 0)
    fail(name, "not an omprof profile (bad magic)");
  Profile p;
  p.path = name;
  size_t pos = format::kMagic.size();
  uint64_t records = 0;
  bool have_header = false, have_trailer = false;
  while (pos < b.size()) {
    if (have_trailer) fail(name, "corrupt profile: data after the trailer");
    uint64_t len = 0;
    if (!read_varint(b, pos, len) || len > b.size() - pos)
      fail(name, "truncated profile (record " + std::to_string(records + 1) + " is cut short)");
    v1::Record rec;
    // A corrupt string (bad UTF-8) is our one-line error, not also libprotobuf's log lines.
    const google::protobuf::LogSilencer quiet;
    if (!rec.ParseFromArray(b.data() + pos, int(len)))
      fail(name, "corrupt profile (record " + std::to_string(records + 1) + " does not parse)");
    pos += len;
    if (records == 0 && rec.kind_case() != v1::Record::kHeader)
      fail(name, "corrupt profile: the first record is not a header");
    add_record(p, rec, name, records, have_header, have_trailer);
    ++records;
  }
  if (!have_header) fail(name, "truncated profile (no header)");
  if (!have_trailer) fail(name, "truncated profile (no trailer: the file was cut short)");
  if (p.strings.empty() || !p.strings[0].empty()) fail(name, "corrupt profile: string table");
  check_references(p);
  return p;
}

Profile read_profile(const std::string& path) {
  // Only regular files: a directory is not "an empty file", and a device such as /dev/zero
  // would be read without end.
  struct stat st;
  if (stat(path.c_str(), &st) != 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory (give the profile files in it)");
  if (!S_ISREG(st.st_mode)) fail(path, "not a regular file, not an omprof profile");
  // read() itself, so that a read error is one (/proc/self/mem fails with EIO at offset 0: a
  // stream's copy stopped there and called the file empty).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      fail(path, std::string("cannot read: ") + std::strerror(error));
    }
    if (n == 0) break;
    bytes.append(buf, size_t(n));
  }
  ::close(fd);
  return parse_profile(bytes, path);
}

}  // namespace omprof::format
