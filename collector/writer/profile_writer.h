// Writes the profile at shutdown (ordinary context, sampling stopped): symbolizes every address
// the samples and fork records use, and encodes the records of proto/omprof.proto.
#pragma once

#include <cstdint>
#include <string>

namespace omprof {

// Writes <output_dir>/<program>.<pid>[.<rank>][.<n>].omprof, never overwriting a file, and
// appends a summary line to the launcher's manifest. Reports failures on stderr.
// `ending` is how the process is ending (omprof.proto Ending.Kind: 0 unknown, 1 exited with
// `exit_status`). On success the journal is removed.
struct ProcessEnding {
  uint32_t kind = 0;
  int exit_status = 0;
};
void write_profile(uint64_t duration_ns, ProcessEnding ending);

// Another process truncated the journal during the run: the thread states were lost with it, so
// no profile can be written. Says so (stderr and the launcher's manifest) and removes the file.
void report_states_lost();

// Picks the file name and creates it exclusively; returns the fd or -1 with `error` set.
int create_profile_file(const std::string& dir, const std::string& stem, std::string& path,
                        std::string& error);

}  // namespace omprof
