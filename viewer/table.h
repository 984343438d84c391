// Column output for reports: aligned text or CSV (RFC 4180 quoting), same rows either way.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "proto/text.h"

namespace omprof::viewer {

enum class Format { kText, kCsv, kJson };
// CSV and JSON: complete, unshortened, for programs (docs/format.md "Report columns").
inline bool machine_readable(Format f) {
  return f != Format::kText;
}

class Table {
 public:
  // Columns whose name starts with '<' are left-aligned in text output.
  explicit Table(std::vector<std::string> columns) : columns_(std::move(columns)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // CSV columns are only ever appended (docs/format.md): columns [at, at + n), added after the
  // others, print last in CSV, and where they read best in text. Columns of a later call print
  // after those of an earlier one.
  void last_in_csv(size_t at, size_t n) {
    for (size_t i = at; i < at + n; ++i) csv_last_.push_back(i);
  }
  // In text, `max_width` > 0 shortens the last column (a name) in the middle so that lines fit.
  // `colour` (text on a terminal): the header bold, rows of omprof's wait frames (<omp:...>,
  // <mpi:...>) blue.
  void print(std::ostream& out, Format format, size_t max_width = 0, bool colour = false) const;
  // Text on a terminal: numbers in columns [first, first + n) below `threshold` red, the others
  // green (efficiencies against POP's 0.8).
  void colour_below(double threshold, size_t first, size_t n) {
    colour_threshold_ = threshold;
    colour_first_ = first;
    colour_n_ = n;
  }
  size_t size() const { return rows_.size(); }
  const std::vector<std::string>& columns() const { return columns_; }
  // Appends `other`'s rows (same columns) behind a first column `name` = `value` (a rank): the
  // per-rank tables of several profiles as one. The first call sets the columns.
  void append_with(const std::string& name, const std::string& value, const Table& other);
  // An array of row objects keyed by the CSV column names: a text column (name starting with
  // '<') holds strings; another holds numbers, null where a cell is empty or "n/a".
  nlohmann::json to_json() const;
  // The same array, written row by row (no document in memory: a tree may have millions).
  void write_json(std::ostream& out) const;
  // A table from CSV text (a header line, then rows; RFC 4180 quoting): how views that write
  // CSV themselves (the MPI summary's regions) reach JSON. `text_columns` hold strings.
  static Table from_csv(const std::string& csv, const std::vector<std::string>& text_columns);

 private:
  std::vector<std::string> in_csv_order(std::vector<std::string> cells) const;
  void print_text(std::ostream& out, size_t max_width, bool colour) const;
  std::string coloured_cell(size_t column, const std::string& cell, std::string padded) const;
  double colour_threshold_ = 0;
  size_t colour_first_ = 0, colour_n_ = 0;
  std::vector<size_t> csv_last_;  // text positions, in their CSV order at the end
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

using text::csv_quote;
std::string seconds(uint64_t ns);  // "1.234"
std::string seconds(double ns);    // the same from a double (sums over ranks: any size)
// A value the profile does not have: "-" in text, empty in CSV (null in JSON).
inline std::string unknown_cell(Format format) {
  return format == Format::kText ? "-" : "";
}
std::string percent(double part, double whole);  // "12.3"
// Too long for `width`: the middle gives way, so that both the start of a name and its end (a
// region frame's file:line, a signature's last parameters) stay readable.
std::string fit(const std::string& s, size_t width);

}  // namespace omprof::viewer
