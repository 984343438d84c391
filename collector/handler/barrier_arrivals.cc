#include "collector/handler/barrier_arrivals.h"

namespace omprof::handler::barrier_arrivals {

Slot g_slots[kSlots];

}  // namespace omprof::handler::barrier_arrivals
