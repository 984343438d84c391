// Status codes and mismatch modes of explicit regions (values of include/omprof/omprof.h).
#pragma once

namespace omprof::regions {

enum Status : int {
  kSuccess = 0,
  kNotInit = 1,
  kNotImplemented = 2,
  kUnknown = 3,
  kActive = 4,
  kMismatch = 5,
  kMpiIncon = 6,
  kIo = 7,
  kInvalidName = 8,
  kReentered = 9,
};

enum class MismatchMode { kStrict = 0, kWarn = 1, kRepair = 2 };

const char* status_name(int status);

}  // namespace omprof::regions
