// Recovers a profile from a journal (proto/journal.h, docs/format.md): what a process left in
// its output directory when it ended without writing its profile (a fatal or terminating
// signal, _exit, SIGKILL), or what a running process holds so far. The result is an ordinary
// profile file's bytes, marked recovered, with the ending the caller observed; readers validate
// it like any file (profile_reader.h).
#pragma once

#include <cstdint>
#include <string>

#include "omprof.pb.h"

namespace omprof::format {

class JournalCopies;

// Whether `path` names a journal (by its suffix).
bool is_journal_path(const std::string& path);

// `end_unix_ns`: when the process was seen to end (0: unknown; the journal's last change is
// used). `copies`: a reader's copies of the journals it reads again (journal_file.h; null: none).
// Throws ProfileError naming the file on a journal that is not one, or is damaged beyond use.
std::string recover_profile(const std::string& journal_path, const v1::Ending& ending,
                            uint64_t end_unix_ns, JournalCopies* copies = nullptr);

// For a reader that did not see the process end: ENDING_RUNNING if the process that writes the
// journal is alive on this host, else ENDING_NOT_OBSERVED.
v1::Ending observe_ending(const std::string& journal_path);

}  // namespace omprof::format
