#include "collector/handler/region_ends.h"

namespace omprof::handler {

RegionEnd g_region_ends[kRegionEndRingSize];
RegionStart g_region_starts[kRegionEndRingSize];
std::atomic<uint32_t> g_latest_fork{0};

}  // namespace omprof::handler
