#include "collector/handler/region_ends.h"

namespace omprof::handler {

RegionEnd g_region_ends[kRegionEndRingSize];

}  // namespace omprof::handler
