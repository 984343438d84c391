// Column output for reports: aligned text or CSV (RFC 4180 quoting), same rows either way.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "proto/text.h"

namespace omprof::viewer {

enum class Format { kText, kCsv };

class Table {
 public:
  // Columns whose name starts with '<' are left-aligned in text output.
  explicit Table(std::vector<std::string> columns) : columns_(std::move(columns)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void print(std::ostream& out, Format format) const;
  size_t size() const { return rows_.size(); }

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

using text::csv_quote;
std::string seconds(uint64_t ns);                // "1.234"
std::string percent(double part, double whole);  // "12.3"

}  // namespace omprof::viewer
