#include "viewer/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "viewer/json_text.h"

namespace omprof::viewer {

std::string seconds(uint64_t ns) {
  return fmt::format("{:.3f}", double(ns) / 1e9);
}

std::string seconds(double ns) {
  return fmt::format("{:.3f}", ns / 1e9);
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
  if (csv_last_.empty()) return cells;
  std::vector<bool> moved(cells.size(), false);
  for (size_t i : csv_last_)
    if (i < cells.size()) moved[i] = true;
  std::vector<std::string> out;
  out.reserve(cells.size());
  for (size_t i = 0; i < cells.size(); ++i)
    if (!moved[i]) out.push_back(std::move(cells[i]));
  for (size_t i : csv_last_)
    if (i < cells.size()) out.push_back(std::move(cells[i]));
  return out;
}

static std::string name_of(const std::string& column) {
  return column[0] == '<' ? column.substr(1) : column;
}

// A cell as JSON: a text column's as a string; another's as a number, null where empty or
// "n/a", the text itself where it is not a number.
static nlohmann::json json_cell(bool text_column, const std::string& cell) {
  if (text_column) return cell;
  const char* begin = cell.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (cell.empty() || end == begin || *end != '\0' || errno != 0 || !std::isfinite(v))
    return cell.empty() || cell == "n/a" ? nlohmann::json(nullptr) : nlohmann::json(cell);
  const bool whole = cell.find_first_of(".eE") == std::string::npos;
  if (whole && cell[0] != '-') return std::stoull(cell);
  if (whole) return std::stoll(cell);
  return v;
}

nlohmann::json Table::to_json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : rows_) {
    nlohmann::json r = nlohmann::json::object();
    for (size_t i = 0; i < row.size() && i < columns_.size(); ++i)
      r[name_of(columns_[i])] = json_cell(columns_[i][0] == '<', row[i]);
    rows.push_back(std::move(r));
  }
  return rows;
}

// Whether `s` is a number as JSON writes it (RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?
// [0-9]+)?), which the table's numbers are: then it is written as it is.
static bool is_json_number(const std::string& s) {
  size_t i = 0;
  const size_t n = s.size();
  auto digits = [&] {
    const size_t from = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  };
  if (i < n && s[i] == '-') ++i;
  if (i < n && s[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < n && s[i] == '.' && (++i, !digits())) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

// A JSON string, appended to `out`; text that is not plain ASCII goes through nlohmann, which
// replaces invalid UTF-8 (a symbol name's bytes are not always text).
static void append_json_string(std::string& out, const std::string& s) {
  for (unsigned char c : s)
    if (c >= 0x80) {
      out += json_text(nlohmann::json(s));
      return;
    }
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", int(c));
    } else {
      out += c;
    }
  }
  out += '"';
}

void Table::write_json(std::ostream& out) const {
  std::vector<std::string> keys;
  for (const auto& c : columns_) {
    std::string key;
    append_json_string(key, name_of(c));
    keys.push_back(key + ":");
  }
  out << "[";
  std::string line;  // one row, written at once
  for (size_t r = 0; r < rows_.size(); ++r) {
    const auto& row = rows_[r];
    line.assign(r ? ",\n{" : "\n{");
    for (size_t i = 0; i < row.size() && i < columns_.size(); ++i) {
      if (i) line += ',';
      line += keys[i];
      if (columns_[i][0] == '<')
        append_json_string(line, row[i]);
      else if (is_json_number(row[i]))
        line += row[i];
      else
        line += json_text(json_cell(false, row[i]));
    }
    line += '}';
    out.write(line.data(), std::streamsize(line.size()));
  }
  out << (rows_.empty() ? "]" : "\n]");
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
    csv_last_.clear();
    for (size_t i : other.csv_last_) csv_last_.push_back(i + 1);
  }
  for (const auto& r : other.rows_) {
    std::vector<std::string> cells = r;
    cells.insert(cells.begin(), value);
    rows_.push_back(std::move(cells));
  }
}

void Table::print(std::ostream& out, Format format, size_t max_width, bool colour) const {
  if (format == Format::kJson) {
    write_json(out);
    out << "\n";
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
  print_text(out, max_width, colour);
}

std::string Table::coloured_cell(size_t column, const std::string& cell, std::string padded) const {
  if (column < colour_first_ || column >= colour_first_ + colour_n_) return padded;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (end == cell.c_str()) return padded;
  return (v < colour_threshold_ ? "\033[31m" : "\033[32m") + padded + "\033[0m";
}

void Table::print_text(std::ostream& out, size_t max_width, bool colour) const {
  // Cells as a terminal may show them (text::printable), made when measured and when printed:
  // a table of millions of rows is not copied.
  std::vector<size_t> width(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) width[i] = name_of(columns_[i]).size();
  for (const auto& r : rows_)
    for (size_t i = 0; i < r.size() && i < width.size(); ++i)
      if (i + 1 < columns_.size()) width[i] = std::max(width[i], text::printable(r[i]).size());
  // What the columns before the last take: the rest of the line is the last column's.
  size_t before_last = 0;
  for (size_t i = 0; i + 1 < columns_.size(); ++i) before_last += width[i] + 2;
  const size_t last_width =
      max_width ? std::max<size_t>(16, max_width - std::min(max_width, before_last)) : 0;
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string s;
    for (size_t i = 0; i < cells.size(); ++i) {
      const bool left = columns_[i][0] == '<';
      const std::string cell = header ? name_of(cells[i]) : text::printable(cells[i]);
      const std::string c =
          !header && last_width && i + 1 == columns_.size() ? fit(cell, last_width) : cell;
      if (i) s += "  ";
      std::string padded;
      if (i + 1 == cells.size() && left) {
        padded = c;
      } else if (left) {
        padded = c + std::string(width[i] - std::min(width[i], c.size()), ' ');
      } else {
        padded = std::string(width[i] - std::min(width[i], c.size()), ' ') + c;
      }
      s += colour && !header ? coloured_cell(i, c, std::move(padded)) : padded;
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
