#include "viewer/profile_inputs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <filesystem>
#include <iostream>

#include "proto/journal_reader.h"
#include "proto/text.h"

namespace omprof::viewer {

std::vector<std::string> expand_profile_arguments(const std::vector<std::string>& args,
                                                  int& status) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(a, ec)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(a, ec))
      if ((e.path().extension() == ".omprof" || format::is_journal_path(e.path().string())) &&
          e.is_regular_file(ec))
        found.push_back(e.path().string());
    if (found.empty()) {
      std::cerr << "omprof: " << a << ": no .omprof profiles in this directory\n";
      status = 1;
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

void tell_unreadable(const format::ProfileError& e, int& status) {
  std::cerr << "omprof: " << text::printable(e.what()) << "\n";
  status = 1;
}

void for_each_profile(const std::vector<std::string>& files, SymbolCache& symbols, int& status,
                      const ProfileUse& use) {
  for (const std::string& file : files) {
    try {
      use(load_profile(file, symbols));
    } catch (const format::ProfileError& e) {
      tell_unreadable(e, status);
    }
  }
}

namespace {
int cannot_write(const std::string& path, const char* command) {
  std::cerr << "omprof: " << command << ": cannot write '" << path << "': " << std::strerror(errno)
            << "\n";
  return 1;
}
}  // namespace

// The temporary file is new (mkstemp: O_EXCL, so a symlink planted at its name is never
// followed) and gets the mode a new file would get.
int write_file_atomically(const std::string& path, const char* command,
                          const std::function<void(std::ostream&)>& write) {
  std::string tmp = path + ".tmpXXXXXX";
  const int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return cannot_write(path, command);
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  {
    __gnu_cxx::stdio_filebuf<char> buffer(fd, std::ios::out | std::ios::binary);  // closes fd
    std::ostream out(&buffer);
    write(out);
    out.flush();
    if (!out || buffer.close() == nullptr) {
      const int failed = cannot_write(path, command);
      std::remove(tmp.c_str());
      return failed;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int failed = cannot_write(path, command);
    std::remove(tmp.c_str());
    return failed;
  }
  return 0;
}

}  // namespace omprof::viewer
