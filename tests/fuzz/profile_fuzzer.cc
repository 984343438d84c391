// libFuzzer target for everything that reads a file omprof may be given: a profile (the reader,
// then the model in every view, every report table and the views over ranks), a journal (the
// recovery, then the same views of the recovered profile) and an MPI job summary (.ompsum).
// The input's magic says which. Inputs that are none of these must end in ProfileError;
// nothing may crash, hang, or allocate beyond what the file's size justifies.
//
// Structure-aware: LLVMFuzzerCustomMutator works on records. It splits the file into its
// length-prefixed records, and deletes, duplicates or swaps whole records, or decodes one with
// protobuf reflection and sets a numeric field to a value that breaks assumptions (0, 1, 2^32,
// 2^63, all ones, off by one), then usually fixes the trailer's record count, so that mutants
// get past the framing checks into the code behind them. Byte-level mutation (libFuzzer's own)
// covers the framing itself.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "omprof.pb.h"
#include "proto/format.h"
#include "proto/journal.h"
#include "proto/journal_reader.h"
#include "proto/profile_reader.h"
#include "ranks/job_summary.h"
#include "viewer/mpi_sites.h"
#include "viewer/ranks.h"
#include "viewer/regions_view.h"
#include "viewer/report.h"
#include "viewer/summary_reader.h"

using namespace omprof;

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

const std::string kMagic(omprof::format::kMagic);

bool read_varint(const std::string& b, size_t& pos, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= b.size()) return false;
    const uint8_t c = uint8_t(b[pos++]);
    out |= uint64_t(c & 0x7f) << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}

std::string varint(uint64_t v) {
  std::string s;
  do {
    s += char((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return s;
}

bool split(const std::string& file, std::vector<std::string>& records) {
  if (file.compare(0, kMagic.size(), kMagic) != 0) return false;
  size_t pos = kMagic.size();
  while (pos < file.size()) {
    uint64_t len = 0;
    if (!read_varint(file, pos, len) || len > file.size() - pos) return false;
    records.push_back(file.substr(pos, len));
    pos += len;
  }
  return !records.empty();
}

std::string join(const std::vector<std::string>& records) {
  std::string out = kMagic;
  for (const auto& r : records) out += varint(r.size()) + r;
  return out;
}

uint64_t interesting(std::mt19937_64& rng, uint64_t old) {
  const uint64_t values[] = {0,
                             1,
                             2,
                             old + 1,
                             old - 1,
                             uint64_t(1) << 31,
                             uint64_t(1) << 32,
                             uint64_t(1) << 63,
                             ~uint64_t(0),
                             50000000,
                             rng()};
  return values[rng() % (sizeof values / sizeof values[0])];
}

// Sets one numeric field somewhere inside `msg` (nested messages included).
bool mutate_field(google::protobuf::Message& msg, std::mt19937_64& rng, int depth = 0) {
  using google::protobuf::FieldDescriptor;
  const auto* desc = msg.GetDescriptor();
  const auto* refl = msg.GetReflection();
  if (desc->field_count() == 0 || depth > 4) return false;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const FieldDescriptor* f = desc->field(int(rng() % uint64_t(desc->field_count())));
    const bool repeated = f->is_repeated();
    const int n = repeated ? refl->FieldSize(msg, f) : 1;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (repeated && n == 0) continue;
      if (!repeated && !refl->HasField(msg, f) && f->containing_oneof()) continue;
      google::protobuf::Message* sub = repeated
                                           ? refl->MutableRepeatedMessage(&msg, f, int(rng() % n))
                                           : refl->MutableMessage(&msg, f);
      if (mutate_field(*sub, rng, depth + 1)) return true;
      continue;
    }
    const int i = repeated && n > 0 ? int(rng() % n) : 0;
    const bool add = repeated && (n == 0 || rng() % 4 == 0);
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_UINT64: {
        const uint64_t v = interesting(rng, add        ? 0
                                            : repeated ? refl->GetRepeatedUInt64(msg, f, i)
                                                       : refl->GetUInt64(msg, f));
        add        ? refl->AddUInt64(&msg, f, v)
        : repeated ? refl->SetRepeatedUInt64(&msg, f, i, v)
                   : refl->SetUInt64(&msg, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_UINT32: {
        const uint32_t v = uint32_t(interesting(rng, 0));
        add        ? refl->AddUInt32(&msg, f, v)
        : repeated ? refl->SetRepeatedUInt32(&msg, f, i, v)
                   : refl->SetUInt32(&msg, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_INT64: {
        const int64_t v = int64_t(interesting(rng, 0));
        add        ? refl->AddInt64(&msg, f, v)
        : repeated ? refl->SetRepeatedInt64(&msg, f, i, v)
                   : refl->SetInt64(&msg, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_INT32: {
        const int32_t v = int32_t(interesting(rng, 0));
        add        ? refl->AddInt32(&msg, f, v)
        : repeated ? refl->SetRepeatedInt32(&msg, f, i, v)
                   : refl->SetInt32(&msg, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_BOOL:
        if (!repeated) refl->SetBool(&msg, f, !refl->GetBool(msg, f));
        return !repeated;
      default:
        break;
    }
  }
  return false;
}

void fix_trailer(std::vector<std::string>& records) {
  v1::Record last;
  if (records.empty() || !last.ParseFromString(records.back()) || !last.has_trailer()) return;
  last.mutable_trailer()->set_record_count(records.size() - 1);
  records.back() = last.SerializeAsString();
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> records;
  if (rng() % 8 == 0 || !split(std::string(reinterpret_cast<char*>(data), size), records))
    return LLVMFuzzerMutate(data, size, max_size);
  const size_t k = size_t(rng() % records.size());
  switch (rng() % 5) {
    case 0:
      if (records.size() > 1) records.erase(records.begin() + long(k));
      break;
    case 1:
      records.insert(records.begin() + long(rng() % records.size()), records[k]);
      break;
    case 2:
      std::swap(records[k], records[size_t(rng() % records.size())]);
      break;
    case 3: {
      std::string r = records[k];
      r.resize(r.size() * 2 + 16);
      r.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(&r[0]), records[k].size(), r.size()));
      records[k] = r;
      break;
    }
    default: {
      v1::Record rec;
      if (rec.ParseFromString(records[k]) && mutate_field(rec, rng))
        records[k] = rec.SerializeAsString();
      break;
    }
  }
  if (rng() % 4 != 0) fix_trailer(records);
  const std::string out = join(records);
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

namespace {

// The readers of journals and summaries take a path: the input goes to a memory file.
struct MemoryFile {
  explicit MemoryFile(const uint8_t* data, size_t size) : fd(memfd_create("fuzz", MFD_CLOEXEC)) {
    if (fd >= 0 && write(fd, data, size) != ssize_t(size)) {
      close(fd);
      fd = -1;
    }
  }
  ~MemoryFile() {
    if (fd >= 0) close(fd);
  }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd); }
  int fd;
};

bool starts_with(const uint8_t* data, size_t size, std::string_view magic) {
  return size >= magic.size() && std::memcmp(data, magic.data(), magic.size()) == 0;
}

void every_view(const format::Profile& p) {
  for (const omp::View view : {omp::View::kUser, omp::View::kExpert, omp::View::kMachine}) {
    viewer::Model m = viewer::build_model(p, view);
    std::ostringstream out;
    viewer::print_header(out, m);
    for (const viewer::Format f : {viewer::Format::kText, viewer::Format::kCsv}) {
      viewer::flat_table(m, 20, f).print(out, f);
      viewer::tree_table(m, 0.0, f).print(out, f);
      viewer::region_tree_table(m, f).print(out, f);
    }
    viewer::thread_table(m, viewer::Format::kText).print(out, viewer::Format::kText);
    viewer::state_table(m).print(out, viewer::Format::kText);
    viewer::parallel_region_table(m, viewer::Format::kText).print(out, viewer::Format::kText);
  }
  // The views over ranks: the rank's numbers, the job summary made of it, its MPI call sites.
  std::ostringstream out;
  const std::vector<viewer::RankNumbers> ranks{viewer::rank_numbers(p)};
  viewer::ranks_table(ranks).print(out, viewer::Format::kText);
  ranks::write_text(out, ranks::summarize_ranks(ranks, std::max<int64_t>(1, p.header.mpi_size())));
  viewer::print_mpi_sites(out, {viewer::mpi_sites(p)}, 20, viewer::Format::kText);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    if (starts_with(data, size, std::string_view(journal::kMagic, sizeof journal::kMagic))) {
      const MemoryFile f(data, size);
      if (f.fd < 0) return 0;
      const std::string bytes = format::recover_profile(f.path(), v1::Ending(), 0);
      every_view(format::parse_profile(bytes, "fuzz"));
    } else if (starts_with(data, size, format::kSummaryMagic)) {
      const MemoryFile f(data, size);
      if (f.fd < 0) return 0;
      std::ostringstream out;
      ranks::write_text(out, viewer::read_summary_file(f.path()));
    } else {
      every_view(
          format::parse_profile(std::string(reinterpret_cast<const char*>(data), size), "fuzz"));
    }
  } catch (const format::ProfileError&) {
  }
  return 0;
}
