/* Names that attack what shows them: a function whose symbol holds terminal escape sequences,
 * one a spreadsheet would run as a formula, an explicit region named so as to end or confuse an
 * HTML script block, and one whose name is not UTF-8 (Latin-1 "Groesse" with its sharp s, as a
 * program built with a Latin-1 source file names it). Each function spins about 0.15 s. */
#include <stdio.h>

#include "omprof/omprof.h"

__attribute__((noinline)) double escape_fn(void) __asm__("\"esc\x1b]0;title\x07\x1b[31mred\"");
__attribute__((noinline)) double formula_fn(void) __asm__("\"=HYPERLINK(1)\"");

double escape_fn(void) {
  volatile double x = 1;
  for (long i = 0; i < 60000000; ++i) x = x * 1.0000001;
  return x;
}

double formula_fn(void) {
  volatile double x = 1;
  for (long i = 0; i < 60000000; ++i) x = x * 1.0000001;
  return x;
}

int main(void) {
  omprof_region_begin("<!--<script>");
  double x = escape_fn();
  omprof_region_begin(
      "Gr\xf6\xdf"
      "e");
  x += formula_fn();
  omprof_region_end(
      "Gr\xf6\xdf"
      "e");
  omprof_region_end("<!--<script>");
  printf("%f\n", x > 0 ? 1.0 : 0.0);
  return 0;
}
