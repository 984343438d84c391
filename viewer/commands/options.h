// Options and checks the viewer's commands share.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "omp/states.h"
#include "viewer/filter.h"
#include "viewer/table.h"

namespace omprof::viewer::commands {

// Row counts: digits only ("-1" wrapped around to 18446744073709551615).
extern const CLI::Validator kCount;
// Percentages: a finite number from 0 to 100 ("nan" passed CLI::Range and pruned everything).
extern const CLI::Validator kPercent;

// The sample filters (viewer/filter.h), shared by the commands that read samples.
void add_filter_options(CLI::App* cmd, FilterOptions& f);
// A filter that cannot work (a bad regular expression, an unknown state) is a usage error:
// one line, and false.
bool valid_filter(const FilterOptions& f);
// --view user|expert|machine.
void add_view_option(CLI::App* cmd, std::string& view);
// --format text|csv|json, and its shorthands --csv and --json.
void add_format_options(CLI::App* cmd, std::string& format, const std::string& help);
Format parse_format(const std::string& format);

// Columns of the terminal on standard output; 0 when it is not a terminal (a file, a pipe):
// then names are never shortened.
size_t terminal_width();
// Colours only on a terminal, and never when NO_COLOR is set to anything (no-color.org), unless
// asked for: --color always|never|auto.
bool use_colour(const std::string& choice);

}  // namespace omprof::viewer::commands
