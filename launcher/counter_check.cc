#include "launcher/counter_check.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <vector>

#include "launcher/perf_refusal.h"
#include "launcher/viewer_exec.h"
#include "proto/counter_events.h"

namespace omprof::launcher {

namespace {

// Opens the kernel events as one counting group on this process, as the collector will on each
// thread; 0 or one line and 2.
int probe_kernel_events(const std::vector<counters::EventSpec>& events) {
  std::vector<int> fds;
  int status = 0;
  for (const counters::EventSpec& e : events) {
    if (e.source != counters::Source::kKernel) continue;
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = e.perf_config;
    attr.read_format = PERF_FORMAT_GROUP;
    attr.disabled = 1;
    attr.exclude_hv = 1;
    const int group = fds.empty() ? -1 : fds.front();
    const int fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0) {
      std::fprintf(stderr, "omprof: cannot count %s: perf_event_open: %s\n", e.name.c_str(),
                   perf_refusal(errno).c_str());
      status = 2;
      break;
    }
    fds.push_back(fd);
  }
  for (int fd : fds) close(fd);
  return status;
}

}  // namespace

int check_counters(const std::string& list, std::string& names) {
  std::vector<counters::EventSpec> events;
  std::string error;
  if (!counters::parse_event_list(list, events, error)) {
    std::fprintf(stderr, "omprof: %s\n", error.c_str());
    return 2;
  }
  std::vector<std::string> papi = {"probe-counters"};
  for (const counters::EventSpec& e : events)
    if (e.source == counters::Source::kPapi) papi.push_back(e.name);
  if (papi.size() > 1 && run_viewer(papi, "cannot check PAPI events: ") != 0) return 2;
  if (int rc = probe_kernel_events(events)) return rc;
  names = counters::join_names(events);
  return 0;
}

}  // namespace omprof::launcher
