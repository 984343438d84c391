// What the collector tells `omprof run` (the manifest, one tab-separated line per event), and a
// descriptor held in reserve so that the profile can still be written when the program has
// used up its descriptors.
#pragma once

#include <string>

namespace omprof {

// Appends one line (proto/manifest.h) to the launcher's manifest, if there is one.
void append_manifest(const std::string& line);

// Writes all of `data`, retrying short writes and EINTR.
bool write_all(int fd, const std::string& data);

// Takes one descriptor (a memfd, far above the low numbers programs expect) at start.
void reserve_descriptor();
// Gives it back just before the collector opens a file at exit, if it is still the one taken
// (a program may have closed it, or reused its number: then it is left alone).
void release_reserved_descriptor();

}  // namespace omprof
