#include <stdio.h>
#include <string.h>
#include "greeting.h"

int main(int argc, char **argv) {
  char buf[128];
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "--version") == 0)) {
    puts("hello 1.0 — prints a greeting");
    return 0;
  }
  greeting(buf, sizeof buf, argc > 1 ? argv[1] : "world");
  puts(buf);
  return 0;
}
