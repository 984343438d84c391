#include "viewer/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace omprof::viewer {

std::string seconds(uint64_t ns) {
  return fmt::format("{:.3f}", double(ns) / 1e9);
}

std::string percent(double part, double whole) {
  return fmt::format("{:.1f}", whole > 0 ? 100.0 * part / whole : 0.0);
}

std::string fit(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  if (width <= 3) return s.substr(0, width);
  const size_t keep = width - 3, head = (keep + 1) / 2;
  return s.substr(0, head) + "..." + s.substr(s.size() - (keep - head));
}

std::vector<std::string> Table::in_csv_order(std::vector<std::string> cells) const {
  const auto [at, n] = csv_last_;
  if (n && at + n <= cells.size())
    std::rotate(cells.begin() + long(at), cells.begin() + long(at + n), cells.end());
  return cells;
}

static std::string name_of(const std::string& column) {
  return column[0] == '<' ? column.substr(1) : column;
}

nlohmann::json Table::to_json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : rows_) {
    nlohmann::json r = nlohmann::json::object();
    for (size_t i = 0; i < row.size() && i < columns_.size(); ++i) {
      const std::string& cell = row[i];
      if (columns_[i][0] == '<') {
        r[name_of(columns_[i])] = cell;
        continue;
      }
      const char* begin = cell.c_str();
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(begin, &end);
      if (cell.empty() || end == begin || *end != '\0' || errno != 0 || !std::isfinite(v)) {
        r[name_of(columns_[i])] =
            cell.empty() || cell == "n/a" ? nlohmann::json(nullptr) : nlohmann::json(cell);
        continue;
      }
      const bool whole = cell.find_first_of(".eE") == std::string::npos;
      if (whole && cell[0] != '-')
        r[name_of(columns_[i])] = std::stoull(cell);
      else if (whole)
        r[name_of(columns_[i])] = std::stoll(cell);
      else
        r[name_of(columns_[i])] = v;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// RFC 4180 fields of one record starting at `at` (which moves past it).
static std::vector<std::string> csv_record(const std::string& csv, size_t& at) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (; at < csv.size(); ++at) {
    const char c = csv[at];
    if (quoted) {
      if (c == '"' && at + 1 < csv.size() && csv[at + 1] == '"') {
        cells.back() += '"';
        ++at;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c == '\n') {
      ++at;
      break;
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  return cells;
}

Table Table::from_csv(const std::string& csv, const std::vector<std::string>& text_columns) {
  size_t at = 0;
  std::vector<std::string> columns = csv_record(csv, at);
  for (auto& c : columns)
    if (std::find(text_columns.begin(), text_columns.end(), c) != text_columns.end()) c = "<" + c;
  Table t(columns);
  while (at < csv.size()) {
    std::vector<std::string> cells = csv_record(csv, at);
    if (cells.size() == 1 && cells[0].empty()) continue;
    cells.resize(columns.size());
    t.row(std::move(cells));
  }
  return t;
}

void Table::append_with(const std::string& name, const std::string& value, const Table& other) {
  if (columns_.empty() || columns_[0] != name) {
    columns_ = other.columns_;
    columns_.insert(columns_.begin(), name);
    csv_last_ = {other.csv_last_.first + 1, other.csv_last_.second};
  }
  for (const auto& r : other.rows_) {
    std::vector<std::string> cells = r;
    cells.insert(cells.begin(), value);
    rows_.push_back(std::move(cells));
  }
}

void Table::print(std::ostream& out, Format format, size_t max_width, bool colour) const {
  if (format == Format::kJson) {
    out << to_json().dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  if (format == Format::kCsv) {
    const std::vector<std::string> header = in_csv_order(columns_);
    for (size_t i = 0; i < header.size(); ++i)
      out << (i ? "," : "") << csv_quote(name_of(header[i]));
    out << "\n";
    for (const auto& row : rows_) {
      const std::vector<std::string> r = in_csv_order(row);
      for (size_t i = 0; i < r.size(); ++i) out << (i ? "," : "") << csv_quote(r[i]);
      out << "\n";
    }
    return;
  }
  std::vector<size_t> width(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) width[i] = name_of(columns_[i]).size();
  for (const auto& r : rows_)
    for (size_t i = 0; i < r.size() && i < width.size(); ++i)
      if (i + 1 < columns_.size()) width[i] = std::max(width[i], r[i].size());
  // What the columns before the last take: the rest of the line is the last column's.
  size_t before_last = 0;
  for (size_t i = 0; i + 1 < columns_.size(); ++i) before_last += width[i] + 2;
  const size_t last_width =
      max_width ? std::max<size_t>(16, max_width - std::min(max_width, before_last)) : 0;
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string s;
    for (size_t i = 0; i < cells.size(); ++i) {
      const bool left = columns_[i][0] == '<';
      const std::string c = header                                     ? name_of(cells[i])
                            : (last_width && i + 1 == columns_.size()) ? fit(cells[i], last_width)
                                                                       : cells[i];
      if (i) s += "  ";
      if (i + 1 == cells.size() && left) {
        s += c;
      } else if (left) {
        s += c + std::string(width[i] - std::min(width[i], c.size()), ' ');
      } else {
        s += std::string(width[i] - std::min(width[i], c.size()), ' ') + c;
      }
    }
    if (colour && header) {
      s = "\033[1m" + s + "\033[0m";
    } else if (colour && !cells.empty()) {
      const std::string& name = cells.back();
      const size_t at = name.find_first_not_of(' ');
      if (at != std::string::npos &&
          (name.compare(at, 5, "<omp:") == 0 || name.compare(at, 5, "<mpi:") == 0))
        s = "\033[34m" + s + "\033[0m";
    }
    out << s << "\n";
  };
  line(columns_, true);
  for (const auto& r : rows_) line(r, false);
}

}  // namespace omprof::viewer
