// Region names: validation (fTimer's name policy) and escaping for text reports.
#pragma once

#include <string>

#include "regions/status.h"

namespace omprof::regions {

// Trailing blanks are trimmed; empty names, names starting with a blank, and names holding
// ASCII control characters are rejected with kInvalidName. Never truncates.
Status normalize_name(const char* name, std::string& out);

// Text-report form: backslash -> \\, tab/newline/CR -> \t \n \r, other C0 controls, DEL,
// UTF-8 encoded C1 controls and invalid UTF-8 bytes -> \xNN, leading blanks -> \x20, an empty
// name -> <blank>. Valid non-control UTF-8 is kept. (CSV uses the raw name, quoted.)
std::string escape_name(const std::string& name);

}  // namespace omprof::regions
