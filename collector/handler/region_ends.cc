#include "collector/handler/region_ends.h"

namespace omprof::handler {

RegionEnd g_region_ends[kRegionEndRingSize];
RegionStart g_region_starts[kRegionEndRingSize];

}  // namespace omprof::handler
