#include "viewer/symbolize.h"

#include <fmt/format.h>

#include <stdexcept>
#include <tuple>

#include "proto/journal_reader.h"
#include "proto/text.h"
#include "unwind/module_kind.h"

namespace omprof::viewer {

namespace {

// Interns functions into a profile that already has some (from the collector's vdso lookups).
class FunctionTable {
 public:
  explicit FunctionTable(format::Profile& p) : p_(p) {
    for (size_t i = 0; i < p.strings.size(); ++i) strings_.emplace(p.strings[i], i);
    for (const auto& f : p.functions)
      functions_.emplace(std::make_tuple(f.name(), f.system_name(), f.filename()), f.id());
  }
  uint64_t function(const unwind::SourceFrame& fr) {
    const auto key = std::make_tuple(str(fr.function), str(fr.system_name), str(fr.file));
    auto it = functions_.find(key);
    if (it != functions_.end()) return it->second;
    v1::Function f;
    f.set_id(p_.functions.size() + 1);
    f.set_name(std::get<0>(key));
    f.set_system_name(std::get<1>(key));
    f.set_filename(std::get<2>(key));
    p_.functions.push_back(f);
    functions_.emplace(key, f.id());
    return f.id();
  }

 private:
  uint64_t str(const std::string& s) {
    auto it = strings_.find(s);
    if (it != strings_.end()) return it->second;
    p_.strings.push_back(s);
    strings_.emplace(s, p_.strings.size() - 1);
    return p_.strings.size() - 1;
  }
  format::Profile& p_;
  std::unordered_map<std::string, uint64_t> strings_;
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, uint64_t> functions_;
};

}  // namespace

SymbolCache::ModuleSymbols& SymbolCache::module_for(const v1::Mapping& m,
                                                    const format::Profile& p) {
  const std::string& path = p.str(m.filename());
  const std::string& build_id = p.str(m.build_id());
  const std::string key = build_id.empty() ? "path:" + path : build_id;
  auto it = modules_.find(key);
  if (it != modules_.end()) return it->second;
  ModuleSymbols& ms = modules_[key];
  // The module alone, at its link-time addresses: lookups use file-relative addresses, so the
  // same binary loaded at different addresses in different processes shares one cache.
  unwind::Module mod;
  mod.path = path;
  mod.build_id = build_id;
  mod.segments.push_back({0, ~uint64_t(0), 0});
  ms.symbolizer = std::make_unique<unwind::Symbolizer>(std::vector<unwind::Module>{mod});
  ms.problem = ms.symbolizer->problem(0);
  ++opened_;
  return ms;
}

void SymbolCache::symbolize(format::Profile& p) {
  if (!p.header.symbolize_offline()) return;
  FunctionTable table(p);
  std::map<std::string, bool> noted;
  for (auto& loc : p.locations) {
    if (loc.line_size() > 0) continue;
    const v1::Mapping* m = p.mapping(loc.mapping_id());
    if (!m) continue;
    const std::string& path = p.str(m->filename());
    if (path.empty() || path[0] != '/') continue;  // [vdso], anonymous memory
    ModuleSymbols& ms = module_for(*m, p);
    const uint64_t rel = loc.address() - m->load_bias();
    if (!ms.problem.empty()) {
      if (!noted[ms.problem])
        p.notes.push_back(ms.problem + ": its addresses are shown as offsets");
      noted[ms.problem] = true;
      unwind::SourceFrame offset;
      offset.function = text::base_name(path) + "+0x" + fmt::format("{:x}", rel);
      v1::Line* line = loc.add_line();
      line->set_function_id(table.function(offset));
      continue;
    }
    auto hit = ms.lookups.find(rel);
    if (hit == ms.lookups.end()) hit = ms.lookups.emplace(rel, ms.symbolizer->lookup(rel)).first;
    const auto& frames = hit->second.frames;
    if (hit->second.symbol_offset && !frames.empty() && frames.back().line == 0)
      p.function_offsets[loc.id()] = hit->second.symbol_offset;
    const uint64_t symbol_offset = hit->second.symbol_offset;
    if (symbol_offset && !frames.empty() &&
        frames.back().function.find("._omp_fn.") != std::string::npos) {
      const uint64_t entry_rel = rel - symbol_offset;  // (emplace may invalidate `hit`)
      auto entry = ms.lookups.find(entry_rel);
      if (entry == ms.lookups.end())
        entry = ms.lookups.emplace(entry_rel, ms.symbolizer->lookup(entry_rel)).first;
      const auto& first = entry->second.frames;
      auto known = ms.first_lines.find(entry_rel);
      if (known == ms.first_lines.end())
        known = ms.first_lines.emplace(entry_rel, ms.symbolizer->first_line_at(entry_rel)).first;
      const int64_t line = known->second;
      if (!first.empty() && line > 0) p.outlined_entry_lines[loc.id()] = {first.front().file, line};
    }
    for (const auto& fr : frames) {
      if (fr.function.empty() && fr.file.empty()) continue;
      v1::Line* line = loc.add_line();
      line->set_function_id(table.function(fr));
      line->set_line(fr.line);
    }
  }
}

format::Profile load_profile(const std::string& path, SymbolCache& cache,
                             format::JournalCopies* journals) {
  format::Profile p =
      format::is_journal_path(path)
          ? format::parse_profile(
                format::recover_profile(path, format::observe_ending(path), 0, journals), path)
          : format::read_profile(path);
  try {
    cache.symbolize(p);
  } catch (const std::out_of_range& e) {  // an index the reader's checks let through
    throw format::ProfileError(path + ": corrupt profile (" + e.what() + ")");
  }
  return p;
}

}  // namespace omprof::viewer
