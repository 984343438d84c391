// The tables of a profile recovered from a journal (proto/journal_reader.cc): strings, mappings,
// locations and stacks, each with dense ids from 1 as the format requires (a string's from 0).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "omprof.pb.h"
#include "proto/format.h"
#include "proto/journal.h"

namespace omprof::format {

// Accumulates the profile's tables, ids dense from 1 as the format requires.
class TableBuilder {
 public:
  uint64_t string(const std::string& s) {
    auto [it, added] = string_ids_.emplace(s, strings_.size());
    if (added) strings_.push_back(s);
    return it->second;
  }
  uint64_t location(uint64_t address) {
    auto [it, added] = location_ids_.emplace(address, locations_.size() + 1);
    if (added) {
      v1::Location l;
      l.set_id(it->second);
      l.set_address(address);
      l.set_mapping_id(mapping_of(address));
      locations_.push_back(l);
    }
    return it->second;
  }
  uint64_t stack(const uint64_t* frames, uint32_t depth, uint16_t flags) {
    std::string key(reinterpret_cast<const char*>(frames), depth * sizeof(uint64_t));
    key.push_back(char(flags));
    auto [it, added] = stack_ids_.emplace(std::move(key), stacks_.size() + 1);
    if (added) {
      v1::Stack s;
      s.set_id(it->second);
      for (uint32_t i = 0; i < depth; ++i) s.add_location_id(location(frames[i]));
      s.set_truncated(flags & journal::kStackTruncated);
      s.set_unwind_failed(flags & journal::kStackUnwindFailed);
      stacks_.push_back(s);
    }
    return it->second;
  }
  void add_module(const v1::JournalModule& jm) {
    if (jm.segment().empty()) return;
    v1::Mapping m;
    m.set_id(mappings_.size() + 1);
    m.set_start(jm.segment(0).start());
    m.set_limit(jm.segment(jm.segment_size() - 1).limit());
    m.set_file_offset(jm.segment(0).file_offset());
    m.set_filename(string(jm.path()));
    m.set_build_id(string(jm.build_id()));
    m.set_load_bias(jm.load_bias());
    m.set_is_omp_runtime(jm.is_omp_runtime());
    mappings_.push_back(m);
    module_segments_.push_back(jm);
  }
  void mark_unloaded(uint64_t start) {
    for (auto& m : mappings_)
      if (m.start() == start && !m.unloaded()) {
        m.set_unloaded(true);
        return;
      }
  }

  std::vector<std::string> strings_{""};
  std::vector<v1::Mapping> mappings_;
  std::vector<v1::Location> locations_;
  std::vector<v1::Stack> stacks_;

 private:
  // The module whose segment holds the address; the latest loaded wins (a reused range).
  uint64_t mapping_of(uint64_t address) const {
    for (size_t i = module_segments_.size(); i-- > 0;)
      for (const auto& seg : module_segments_[i].segment())
        if (address >= seg.start() && address < seg.limit()) return i + 1;
    return 0;
  }
  std::unordered_map<std::string, uint64_t> string_ids_{{"", 0}};
  std::unordered_map<uint64_t, uint64_t> location_ids_;
  std::unordered_map<std::string, uint64_t> stack_ids_;
  std::vector<v1::JournalModule> module_segments_;
};

}  // namespace omprof::format
