#include "collector/run_report.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/high_descriptors.h"
#include "collector/runtime.h"

namespace omprof {

namespace {

struct Reserve {
  int fd = -1;
  dev_t dev = 0;
  ino_t ino = 0;
};
Reserve g_reserve;

}  // namespace

bool write_all(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t w = ::write(fd, data.data() + off, data.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += size_t(w);
  }
  return true;
}

void append_manifest(const std::string& line) {
  const std::string& manifest = runtime().config.manifest;
  if (manifest.empty()) return;
  const int fd = ::open(manifest.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  write_all(fd, line + "\n");
  ::close(fd);
}

int reserve_descriptor(int fd) {
  if (fd < 0) fd = memfd_create("omprof-reserve", MFD_CLOEXEC);
  if (fd < 0) return -1;
  const int at = move_descriptor_high(fd);
  struct stat st {};
  if (fstat(at, &st) != 0) {
    ::close(at);
    return -1;
  }
  g_reserve = {at, st.st_dev, st.st_ino};
  return at;
}

int held_descriptor() {
  if (g_reserve.fd < 0) return -1;
  struct stat st {};
  if (fstat(g_reserve.fd, &st) == 0 && st.st_dev == g_reserve.dev && st.st_ino == g_reserve.ino)
    return g_reserve.fd;
  g_reserve.fd = -1;  // the program closed it or reused its number
  return -1;
}

void release_reserved_descriptor() {
  if (held_descriptor() >= 0) ::close(g_reserve.fd);
  g_reserve.fd = -1;
}

}  // namespace omprof
