#include "launcher/counter_check.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
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

// Why a hardware event cannot be opened, when the reason is that there is no CPU PMU at all.
std::string hardware_refusal(int error) {
  if ((error == ENOENT || error == EOPNOTSUPP) &&
      access("/sys/bus/event_source/devices/cpu", F_OK) != 0 &&
      access("/sys/bus/event_source/devices/cpu_core", F_OK) != 0)
    return "no hardware performance counters here (the kernel has no CPU PMU: a virtual machine "
           "without a virtual PMU?)";
  return perf_refusal(error);
}

int open_in_group(const counters::EventSpec& e, int group) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = e.perf.type;
  attr.config = e.perf.config;
  attr.config1 = e.perf.config1;
  attr.config2 = e.perf.config2;
  attr.read_format =
      PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.disabled = group < 0 ? 1 : 0;
  attr.exclude_hv = 1;
  return int(syscall(SYS_perf_event_open, &attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC));
}

// Whether the group, enabled for a moment of this thread's work, was on the CPU's counters at
// all: hardware events that do not fit the counters together read nothing, never an error.
bool group_fits(int leader) {
  ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
  volatile uint64_t work = 0;
  for (uint64_t i = 0; i < 2000000; ++i) work = work + i;
  ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
  uint64_t buf[3 + counters::kMaxCounters] = {};  // nr, time enabled, time running, values
  if (read(leader, buf, sizeof buf) < ssize_t(3 * sizeof(uint64_t))) return true;
  return !(buf[1] > 0 && buf[2] == 0);
}

// Opens the events as one counting group on this thread, as the collector will on each thread;
// 0 or one line and 2.
int probe_group(const std::vector<counters::EventSpec>& events) {
  std::vector<int> fds;
  int status = 0;
  bool hardware = false;
  for (const counters::EventSpec& e : events) {
    const int fd = open_in_group(e, fds.empty() ? -1 : fds.front());
    if (fd < 0) {
      const int error = errno;
      std::fprintf(stderr, "omprof: cannot count %s: %s\n", e.name.c_str(),
                   counters::is_hardware(e.perf)
                       ? hardware_refusal(error).c_str()
                       : ("perf_event_open: " + perf_refusal(error)).c_str());
      status = 2;
      break;
    }
    hardware = hardware || counters::is_hardware(e.perf);
    fds.push_back(fd);
  }
  if (status == 0 && hardware && !group_fits(fds.front())) {
    std::fprintf(stderr,
                 "omprof: cannot count %s: the CPU's counters do not hold these %zu events at "
                 "once (name fewer)\n",
                 counters::join_names(events).c_str(), events.size());
    status = 2;
  }
  for (int fd : fds) close(fd);
  return status;
}

// Encodes libpfm4 names and PAPI presets through the viewer; 0 or its one line and 2.
int encode_named_events(std::vector<counters::EventSpec>& events) {
  std::vector<std::string> args = {"probe-counters"};
  for (const counters::EventSpec& e : events)
    if (!e.encoded) args.push_back(e.name);
  if (args.size() == 1) return 0;
  std::string encoded;
  if (run_viewer(args, "cannot check counter events: ", &encoded) != 0) return 2;
  std::vector<counters::EventSpec> named;
  for (const counters::EventSpec& e : events)
    if (!e.encoded) named.push_back(e);
  while (!encoded.empty() && encoded.back() == '\n') encoded.pop_back();
  for (char& c : encoded)
    if (c == '\n') c = ',';
  std::string error;
  if (!counters::apply_encodings(encoded, named, error)) {
    std::fprintf(stderr, "omprof: %s\n", error.c_str());
    return 2;
  }
  size_t next = 0;
  for (counters::EventSpec& e : events)
    if (!e.encoded) e = named[next++];
  return 0;
}

}  // namespace

bool sample_event_as_counter(RunOptions& run) {
  const std::string event = run.clock.substr(std::string("event:").size());
  const size_t colon = event.rfind(':');
  const bool has_period = colon != std::string::npos && colon > 0 && colon + 1 < event.size() &&
                          event[colon + 1] >= '0' && event[colon + 1] <= '9';
  if (!has_period) {
    std::fprintf(stderr,
                 "omprof: --clock %s: give the event and its period, event:NAME:PERIOD (e.g. "
                 "event:page-faults:64)\n",
                 run.clock.c_str());
    return false;
  }
  run.counters = run.counters.empty() ? event : event + "," + run.counters;
  run.counters_given = true;
  run.clock.clear();
  return true;
}

int check_counters(const std::string& list, std::string& names, std::string& encodings) {
  std::vector<counters::EventSpec> events;
  std::string error;
  if (!counters::parse_event_list(list, events, error)) {
    std::fprintf(stderr, "omprof: %s\n", error.c_str());
    return 2;
  }
  if (int rc = encode_named_events(events)) return rc;
  if (int rc = probe_group(events)) return rc;
  names = counters::join_names(events);
  encodings = counters::join_encodings(events);
  return 0;
}

}  // namespace omprof::launcher
