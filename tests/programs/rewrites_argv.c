/* Overwrites its arguments in place before working, as BOTS's option parser marks each option it
 * consumed ("-n" becomes "-*"): the profile must still name the command the program was started
 * with (/proc/self/cmdline shows the rewritten bytes by the end). */
#include <stdio.h>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] == '-' && argv[i][1]) argv[i][1] = '*';
  volatile double x = 1;
  for (long i = 0; i < 20000000; ++i) x = x * 1.0000001 + 1e-9;
  printf("rewrites_argv done\n");
  return 0;
}
