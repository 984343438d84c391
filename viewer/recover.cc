#include "viewer/recover.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "proto/journal.h"
#include "proto/journal_reader.h"
#include "proto/profile_reader.h"

namespace omprof::viewer {

namespace {

v1::Ending ending_of(const std::vector<JournalOf>& journals, size_t i, pid_t child,
                     int wait_status) {
  v1::Ending e;
  for (size_t k = i + 1; k < journals.size(); ++k)
    if (journals[k].pid == journals[i].pid) {
      e.set_kind(v1::Ending::ENDING_EXEC);
      return e;
    }
  if (journals[i].pid != child) {
    e.set_kind(v1::Ending::ENDING_NOT_OBSERVED);
  } else if (WIFSIGNALED(wait_status)) {
    e.set_kind(v1::Ending::ENDING_SIGNALED);
    e.set_signal(uint32_t(WTERMSIG(wait_status)));
    e.set_core_dumped(WCOREDUMP(wait_status));
  } else {
    e.set_kind(v1::Ending::ENDING_EXITED);
    e.set_exit_status(WEXITSTATUS(wait_status));
  }
  return e;
}

// <stem>.ompjournal -> <stem>.omprof, or <stem>.<n>.omprof if taken; never overwrites.
int create_beside(const std::string& journal, std::string& path) {
  const std::string stem = journal.substr(0, journal.size() - std::strlen(journal::kSuffix));
  for (int n = 0; n < 1000; ++n) {
    path = stem + (n ? "." + std::to_string(n) : "") + ".omprof";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

bool write_all(int fd, const std::string& data) {
  for (size_t off = 0; off < data.size();) {
    const ssize_t w = ::write(fd, data.data() + off, data.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += size_t(w);
  }
  return true;
}

std::string describe(const v1::Ending& e) {
  switch (e.kind()) {
    case v1::Ending::ENDING_SIGNALED:
      return "killed by signal " + std::to_string(e.signal()) + " (" + strsignal(int(e.signal())) +
             ")";
    case v1::Ending::ENDING_EXITED:
      return "exited with status " + std::to_string(e.exit_status()) + " without exit handlers";
    case v1::Ending::ENDING_EXEC:
      return "replaced by exec()";
    default:
      return "ended unobserved";
  }
}

}  // namespace

int recover_journals(const std::vector<JournalOf>& journals, pid_t child, int wait_status,
                     uint64_t end_unix_ns) {
  int written = 0;
  for (size_t i = 0; i < journals.size(); ++i) {
    const std::string& journal = journals[i].path;
    if (access(journal.c_str(), F_OK) != 0) continue;  // the process wrote its profile
    const v1::Ending ending = ending_of(journals, i, child, wait_status);
    std::string path;
    try {
      const std::string bytes = format::recover_profile(journal, ending, end_unix_ns);
      const format::Profile p = format::parse_profile(bytes, journal);  // readable, or nothing
      uint64_t samples = 0;
      for (const auto& [index, t] : p.threads)
        for (const auto& s : t.sample()) samples += s.count();
      const int fd = create_beside(journal, path);
      bool ok = fd >= 0 && write_all(fd, bytes);
      int error = errno;
      if (fd >= 0 && ::close(fd) != 0 && ok) {
        ok = false;
        error = errno;
      }
      if (!ok) {
        if (fd >= 0) ::unlink(path.c_str());  // never an empty or partial profile
        std::fprintf(stderr, "omprof: cannot write '%s': %s (the journal %s stays)\n", path.c_str(),
                     std::strerror(error), journal.c_str());
        continue;
      }
      ::unlink(journal.c_str());
      ++written;
      std::fprintf(stderr,
                   "omprof: profile %s: recovered from the journal (the process %s): %llu "
                   "samples, %zu thread%s\n",
                   path.c_str(), describe(ending).c_str(), (unsigned long long)samples,
                   p.threads.size(), p.threads.size() == 1 ? "" : "s");
    } catch (const format::ProfileError& e) {
      std::fprintf(stderr, "omprof: no profile recovered: %s\n", e.what());
    }
  }
  return written;
}

}  // namespace omprof::viewer
