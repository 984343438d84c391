// The script of `omprof view`'s page (html_page.cc): it draws the flame graph, the tables and the
// timeline from the page's JSON, and runs the page's self-test ("#selftest"). It begins by
// closing the JSON's <script> element and ends the page.
#pragma once

namespace omprof::viewer {

extern const char* const kHtmlScript;

}  // namespace omprof::viewer
