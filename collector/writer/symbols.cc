#include "collector/writer/symbols.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "proto/fields.h"
#include "unwind/symbolizer.h"

namespace omprof::writer {

namespace fields = format::fields;

SymbolRecords symbolize(std::vector<uint64_t> addresses, const std::vector<unwind::Module>& modules,
                        bool in_process, bool system_lines,
                        const std::unordered_map<uint64_t, std::string>& callees,
                        StringTable& strings) {
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  std::vector<unwind::Module> to_symbolize = modules;
  if (!in_process)
    for (auto& m : to_symbolize) {
      // Only the vdso has no file for the viewer to read; and it is read (0.6 ms) only if a
      // stack has an address in it.
      const bool needed = m.is_vdso && std::any_of(addresses.begin(), addresses.end(),
                                                   [&](uint64_t a) { return m.contains(a); });
      if (!needed) {
        m.path.clear();
        m.is_vdso = false;
      }
    }
  unwind::Symbolizer symbolizer(to_symbolize, system_lines);

  SymbolRecords out;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> function_ids;
  for (uint64_t addr : addresses) {
    const unwind::Symbolized sym = symbolizer.lookup(addr);
    wire::Encoder loc;
    const uint64_t id = out.location_ids.size() + 1;
    out.location_ids[addr] = id;
    loc.u64(fields::Location::kId, id);
    loc.u64(fields::Location::kMappingId, sym.module >= 0 ? uint64_t(sym.module) + 1 : 0);
    loc.u64(fields::Location::kAddress, addr);
    auto callee = callees.find(addr);
    if (callee != callees.end()) loc.u64(fields::Location::kCallee, strings.index(callee->second));
    for (const auto& fr : sym.frames) {
      auto key = std::make_tuple(fr.function, fr.system_name, fr.file);
      auto it = function_ids.find(key);
      if (it == function_ids.end()) {
        const uint64_t fid = function_ids.size() + 1;
        it = function_ids.emplace(key, fid).first;
        wire::Encoder fn;
        fn.u64(fields::Function::kId, fid);
        fn.u64(fields::Function::kName, strings.index(fr.function));
        fn.u64(fields::Function::kSystemName, strings.index(fr.system_name));
        fn.u64(fields::Function::kFilename, strings.index(fr.file));
        out.functions.push_back(std::move(fn));
      }
      wire::Encoder line;
      line.u64(fields::Line::kFunctionId, it->second);
      line.i64(fields::Line::kLine, fr.line);
      loc.message(fields::Location::kLine, line);
    }
    out.locations.push_back(std::move(loc));
  }
  return out;
}

}  // namespace omprof::writer
