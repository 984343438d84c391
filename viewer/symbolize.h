// Offline symbolization: the collector records raw addresses and, for every module, its path,
// GNU build-id and load bias; the viewer resolves functions, files, lines and inline frames
// from the files on disk, verified by build-id. A module whose file changed or vanished gets a
// note and keeps its addresses unnamed, never wrong names. One cache serves every profile of a
// report, so a directory of rank profiles of one binary reads that binary once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "proto/journal_file.h"
#include "proto/profile_reader.h"
#include "unwind/symbolizer.h"

namespace omprof::viewer {

class SymbolCache {
 public:
  // Fills in the lines of `p`'s locations that have none (profiles with symbolize_offline),
  // and appends to p.notes what could not be resolved.
  void symbolize(format::Profile& p);
  // Module files opened so far (one per distinct build-id).
  size_t modules_opened() const { return opened_; }

 private:
  struct ModuleSymbols {
    std::unique_ptr<unwind::Symbolizer> symbolizer;
    std::string problem;
    std::unordered_map<uint64_t, unwind::Symbolized> lookups;  // by file-relative address
    std::unordered_map<uint64_t, int64_t> first_lines;         // first_line_at, the same
  };
  ModuleSymbols& module_for(const v1::Mapping& m, const format::Profile& p);
  std::map<std::string, ModuleSymbols> modules_;  // by build-id (path when there is none)
  size_t opened_ = 0;
};

// Reads a profile and symbolizes it with `cache`; `journals`: a reader's copies of the journals
// it reads again (proto/journal_file.h; null: none). Throws format::ProfileError.
format::Profile load_profile(const std::string& path, SymbolCache& cache,
                             format::JournalCopies* journals = nullptr);

}  // namespace omprof::viewer
