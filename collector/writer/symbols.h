// The Location and Function records of a profile: every distinct address that samples and fork
// records use, symbolized once. Ordinary context, at shutdown.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/writer/stack_table.h"
#include "proto/wire.h"
#include "unwind/module.h"

namespace omprof::writer {

struct SymbolRecords {
  std::unordered_map<uint64_t, uint64_t> location_ids;  // address -> Location id
  std::vector<wire::Encoder> functions, locations;
};

// With `in_process` (omprof run --symbolize), every module is symbolized here; otherwise only
// the vDSO, which has no file for the viewer to read. `system_lines`: line tables of system
// libraries too (OMPROF_SYSTEM_LINES=1). `callees`: Location.callee by address
// (call_targets.h).
SymbolRecords symbolize(std::vector<uint64_t> addresses, const std::vector<unwind::Module>& modules,
                        bool in_process, bool system_lines,
                        const std::unordered_map<uint64_t, std::string>& callees,
                        StringTable& strings);

}  // namespace omprof::writer
