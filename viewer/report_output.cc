#include "viewer/report_output.h"

#include <stdexcept>

#include "viewer/json_text.h"

namespace omprof::viewer {

void ReportOutput::json_member(const std::string& key) {
  if (!keys_.insert(key).second)
    throw std::logic_error("report: JSON member '" + key + "' written twice");
  if (!json_open_) {
    out_ << "{";
    json_open_ = true;
  }
  out_ << (keys_.size() > 1 ? ",\n" : "\n") << json_text(nlohmann::json(key)) << ": ";
}

void ReportOutput::next_profile() {
  if (format_ == Format::kJson) {
    if (profiles_++ == 0) {
      json_member("profiles");
      out_ << "[\n{";
    } else {
      out_ << "\n},\n{";
    }
    keys_.clear();
  } else if (profiles_++ && text()) {
    out_ << "\n";
  }
}

void ReportOutput::section(const std::string& key, const std::string& title, const Table& t) {
  switch (format_) {
    case Format::kJson:
      json_member(key);
      t.write_json(out_);
      return;
    case Format::kCsv:
      if (sections_++) out_ << "\n";
      t.print(out_, Format::kCsv);
      return;
    case Format::kText:
      out_ << "\n" << title << "\n";
      t.print(out_, Format::kText, width_, colour_);
      return;
  }
}

void ReportOutput::value(const std::string& key, nlohmann::json v) {
  if (format_ != Format::kJson) return;
  json_member(key);
  out_ << json_text(v, 1);
}

void ReportOutput::finish() {
  if (format_ != Format::kJson) return;
  if (!json_open_) out_ << "{";
  if (profiles_) out_ << "\n}\n]";
  out_ << "\n}\n";
}

}  // namespace omprof::viewer
