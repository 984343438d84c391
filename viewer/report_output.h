// Where the sections of `omprof report` go, in the chosen format:
//   text  a title line, then the aligned table (names fitted to the width)
//   csv   the tables alone, separated by blank lines
//   json  one JSON document: an object with a member per section (an array of row objects keyed
//         by the CSV column names), and "header"; several profiles that are not one MPI job's
//         ranks go in "profiles", an object each. Written as the sections come (members in that
//         order), so that memory does not grow with the document.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>

#include "viewer/table.h"

namespace omprof::viewer {

class ReportOutput {
 public:
  // `colour`: text with terminal colours (viewer/table.h).
  ReportOutput(std::ostream& out, Format format, size_t width, bool colour = false)
      : out_(out), format_(format), width_(width), colour_(colour) {}
  Format format() const { return format_; }
  bool text() const { return format_ == Format::kText; }
  // Text-only lines (headers, notes): nothing in CSV and JSON.
  std::ostream& text_out() { return text() ? out_ : null_; }
  // JSON: starts the next profile's object in "profiles"; text: a blank line between profiles.
  void next_profile();
  void section(const std::string& key, const std::string& title, const Table& t);
  // CSV: a section that writes its CSV itself (the MPI summary's, byte for byte the job's).
  template <typename Write>
  void section_csv_text(Write write) {
    if (sections_++) out_ << "\n";
    write(out_);
  }
  // A JSON member of the current object (the header); nothing in text and CSV.
  void value(const std::string& key, nlohmann::json v);
  // Closes the JSON document (nothing else waits for it).
  void finish();

 private:
  // JSON: starts member `key` of the current object.
  void json_member(const std::string& key);
  std::ostream& out_;
  std::ostream null_{nullptr};
  Format format_;
  size_t width_;
  bool colour_;
  int sections_ = 0, profiles_ = 0;
  bool json_open_ = false;      // the document's "{" is written
  std::set<std::string> keys_;  // the current object's members (each key once)
};

}  // namespace omprof::viewer
