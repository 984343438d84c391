// The text of a JSON document the viewer writes. Names in a profile are the program's bytes (an
// explicit region's name, a path, a command line: the format keeps them as bytes), which need
// not be UTF-8: their invalid bytes are written as U+FFFD instead of aborting the command
// (nlohmann::json's default dump throws on them).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace omprof::viewer {

inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace omprof::viewer
