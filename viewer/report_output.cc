#include "viewer/report_output.h"

namespace omprof::viewer {

nlohmann::json& ReportOutput::current() {
  return profiles_ ? doc_["profiles"].back() : doc_;
}

void ReportOutput::next_profile() {
  if (format_ == Format::kJson) {
    doc_["profiles"].push_back(nlohmann::json::object());
    ++profiles_;
  } else if (profiles_++ && text()) {
    out_ << "\n";
  }
}

void ReportOutput::section(const std::string& key, const std::string& title, const Table& t) {
  switch (format_) {
    case Format::kJson:
      current()[key] = t.to_json();
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
  if (format_ == Format::kJson) current()[key] = std::move(v);
}

void ReportOutput::finish() {
  if (format_ == Format::kJson)
    out_ << doc_.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace omprof::viewer
