#include "viewer/frames.h"

#include <algorithm>
#include <map>

#include "omp/states.h"
#include "proto/text.h"
#include "unwind/module_kind.h"

namespace omprof::viewer {

ProfileFrames::ProfileFrames(const format::Profile& p)
    : p_(p),
      locations_(p.locations.size()),
      expanded_(p.locations.size(), false),
      strings_(p.strings.size()),
      interned_(p.strings.size(), false) {
  mappings_.resize(p.mappings.size() + 1);
  mappings_[0].module = "??";
  for (uint64_t id = 1; id <= p.mappings.size(); ++id) {
    const std::string& file = p.str(p.mappings[id - 1].filename());
    const std::string base = text::base_name(file);
    MappingKind& k = mappings_[id];
    k.runtime = p.mappings[id - 1].is_omp_runtime();
    k.omprof = unwind::is_omprof_module(file);
    k.system = unwind::is_system_module(file);
    k.module = base.empty() ? "??" : base[0] == '[' ? base : "[" + base + "]";
  }
}

const ProfileFrames::MappingKind& ProfileFrames::mapping(uint64_t id) {
  return id < mappings_.size() ? mappings_[id] : mappings_[0];
}

const omp::Name& ProfileFrames::str(uint64_t id) {
  if (!interned_.at(id)) {
    strings_[id] = p_.str(id);
    interned_[id] = true;
  }
  return strings_[id];
}

const omp::FrameStack& ProfileFrames::location(uint64_t id) {
  const size_t i = id - 1;
  if (!expanded_.at(i)) {
    locations_[i] = expand(id);
    expanded_[i] = true;
  }
  return locations_[i];
}

omp::FrameStack ProfileFrames::expand(uint64_t id) {
  const v1::Location& loc = p_.location(id);
  const MappingKind& m = mapping(loc.mapping_id());
  omp::Frame base;
  base.runtime = m.runtime;
  base.omprof = m.omprof;
  base.system = m.system;
  omp::FrameStack out;
  if (loc.line_size() == 0) {
    // Not symbolized: name the module, so that its frames still aggregate.
    out.push_back(base);
    out.back().name = m.module;
  }
  for (const auto& line : loc.line()) {
    const v1::Function& fn = p_.function(line.function_id());
    out.push_back(base);
    omp::Frame& f = out.back();
    // No symbol (a stripped library's static function): name the module, not the address, so
    // that its frames still aggregate.
    f.name = p_.str(fn.name()).empty() ? m.module : str(fn.name());
    f.file = str(fn.filename());
    f.line = line.line();
    // A stub of the program's PLT that jumps into the runtime: the call has entered it.
    if (!f.runtime && omp::is_runtime_plt_stub(f.name.str())) f.runtime = true;
  }
  // The call instruction is in the innermost inlined frame, next to the runtime's frames.
  if (loc.callee() != 0) out.front().callee = str(loc.callee());
  return out;
}

omp::FrameStack ProfileFrames::stack(uint64_t stack_id) {
  omp::FrameStack out;
  const v1::Stack& s = p_.stack(stack_id);
  out.reserve(size_t(s.location_id_size()));
  for (uint64_t loc : s.location_id()) {
    const omp::FrameStack& part = location(loc);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

const ProfileFrames::ConstructBody* ProfileFrames::construct_body(uint64_t fork_id) {
  if (!bodies_found_) find_construct_bodies();
  auto it = bodies_.find(fork_id);
  return it == bodies_.end() ? nullptr : &it->second;
}

// Each region's samples (not a recorded task's) vote for the outlined body nearest their leaf:
// the one the runtime called for the innermost region, their fork record.
void ProfileFrames::find_construct_bodies() {
  bodies_found_ = true;
  if (p_.outlined_entry_lines.empty()) return;
  std::unordered_map<uint64_t, std::map<uint64_t, uint64_t>> votes;  // fork -> location -> n
  auto vote = [&](uint64_t fork, uint64_t stack_id, uint64_t n) {
    for (uint64_t loc : p_.stack(stack_id).location_id())
      if (p_.outlined_entry_lines.count(loc)) {
        votes[fork][loc] += n;
        return;
      }
  };
  for (const auto& [index, t] : p_.threads)
    for (const auto& s : t.sample())
      if (s.fork_id() && !s.task_origin_id() && s.stack_id())
        vote(s.fork_id(), s.stack_id(), s.count());
  // A region forked inside another one's body: its fork stack runs that body (the enclosing
  // region's samples may all be in the nested one).
  for (const auto& f : p_.forks)
    if (!f.task() && f.parent_id() && f.stack_id() && f.parent_id() <= p_.forks.size() &&
        !p_.forks[f.parent_id() - 1].task())
      vote(f.parent_id(), f.stack_id(), std::max<uint64_t>(f.instances(), 1));
  for (const auto& [fork, by_location] : votes) {
    std::map<std::pair<std::string, int64_t>, uint64_t> by_line;
    std::map<std::pair<std::string, int64_t>, std::string> function_of;
    for (const auto& [loc, n] : by_location) {
      const auto& entry = p_.outlined_entry_lines.at(loc);
      by_line[{entry.file, entry.line}] += n;
      const omp::FrameStack& lines = location(loc);
      if (!lines.empty()) function_of[{entry.file, entry.line}] = lines.back().name.str();
    }
    auto best = std::max_element(by_line.begin(), by_line.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    std::string function = function_of[best->first];
    function = function.substr(0, function.find("._omp_fn."));
    if (const size_t clone = function.find(" [clone"); clone != std::string::npos)
      function.resize(clone);
    bodies_[fork] = {function, best->first.first, best->first.second};
  }
}

omp::TaskConstructLines task_construct_lines(ProfileFrames& frames) {
  omp::TaskConstructLines lines;
  for (uint64_t id = 1; id <= frames.profile().stacks.size(); ++id)
    lines.add_call_sites(frames.stack(id));
  return lines;
}

}  // namespace omprof::viewer
