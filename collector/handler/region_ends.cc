#include "collector/handler/region_ends.h"

#include "collector/handler/barrier_arrivals.h"

namespace omprof::handler {

RegionEnd g_region_ends[kRegionEndRingSize];
RegionStart g_region_starts[kRegionEndRingSize];
std::atomic<uint32_t> g_latest_fork{0};

namespace barrier_arrivals {
Slot g_slots[kSlots];
}  // namespace barrier_arrivals

}  // namespace omprof::handler
