// What `omprof run` tells the user once the program has ended: the profiles the collector
// wrote (its manifest, proto/manifest.h), the journals of processes that died recovered into
// profiles, why there is no profile when there is none, and the CPU time of child processes
// that ran unprofiled.
#pragma once

#include <sys/types.h>

#include <string>

namespace omprof::launcher {

// Without --children, the processes the program starts run unprofiled: when they used more
// CPU time than the program itself (a shell script that runs the real program), say so. `pid`
// has ended and is not reaped yet.
void note_unprofiled_children(pid_t pid, const std::string& program);

// Prints what the collector reported, and why there is no profile if none was written.
void report_run(const std::string& manifest_path, const std::string& program, pid_t child,
                int status);

}  // namespace omprof::launcher
