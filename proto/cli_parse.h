// The one way both commands (launcher/main.cc, viewer/main.cc) parse their command line and
// report bad options: CLI11's help and version exits, else one line naming the problem and
// exit status 2. Header-only: CLI11 is.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>

namespace omprof::cli {

// -1 when parsing succeeded, else the status to exit with.
inline int parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "omprof: " << e.what() << "\n"
              << "Run 'omprof --help' or 'omprof SUBCOMMAND --help' for usage.\n";
    return 2;
  }
  return -1;
}

}  // namespace omprof::cli
