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

// Holds one descriptor, far above the low numbers programs expect, from start to exit: `fd` (the
// journal's), or a new memfd when -1. Returns the number it is now held at, or -1.
int reserve_descriptor(int fd = -1);
// That descriptor, or -1 if the program closed it or reused its number.
int held_descriptor();
// Gives it back just before the collector opens a file at exit, if it is still the one taken
// (a program may have closed it, or reused its number: then it is left alone).
void release_reserved_descriptor();

}  // namespace omprof
