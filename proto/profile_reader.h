// Reads an omprof profile file (docs/format.md) into memory, validating everything: magic,
// record framing, message parsing, the format version, id references, and the trailer.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "omprof.pb.h"

namespace omprof::format {

constexpr uint32_t kSupportedMajor = 1;

// Thrown with a one-line message naming the file and the problem.
struct ProfileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Profile {
  std::string path;
  v1::Header header;
  std::vector<std::string> strings;
  std::vector<v1::Mapping> mappings;              // index = id - 1
  std::vector<v1::Function> functions;            // index = id - 1
  std::vector<v1::Location> locations;            // index = id - 1
  std::vector<v1::Stack> stacks;                  // index = id - 1
  std::map<uint32_t, v1::ThreadProfile> threads;  // merged by index
  std::vector<v1::ForkRecord> forks;              // index = id - 1
  std::vector<v1::RegionNode> region_nodes;       // index = id - 1
  std::vector<v1::RegionStats> region_stats;
  v1::Trailer trailer;
  // Added by readers, not stored: what the viewer could not do (e.g. a module whose file
  // changed since the run, so its addresses stay unnamed).
  std::vector<std::string> notes;
  // Added by the viewer's symbolizer: by location id, the address's offset from the start of
  // its function symbol, for locations with no line table (a construct is then "main+0x1a3").
  std::unordered_map<uint64_t, uint64_t> function_offsets;
  // Added by the viewer's symbolizer: by location id, for a location in a body GCC outlined
  // from a construct ("main._omp_fn.0"), the file and line of that function's first
  // instruction, which GCC's line table gives the construct's pragma.
  struct SourceLine {
    std::string file;
    int64_t line = 0;
  };
  std::unordered_map<uint64_t, SourceLine> outlined_entry_lines;

  const std::string& str(uint64_t i) const { return strings.at(i); }
  const v1::Location& location(uint64_t id) const { return locations.at(id - 1); }
  const v1::Function& function(uint64_t id) const { return functions.at(id - 1); }
  const v1::Stack& stack(uint64_t id) const { return stacks.at(id - 1); }
  const v1::Mapping* mapping(uint64_t id) const {
    return id == 0 || id > mappings.size() ? nullptr : &mappings[id - 1];
  }
};

Profile read_profile(const std::string& path);
Profile parse_profile(const std::string& bytes, const std::string& name);

}  // namespace omprof::format
