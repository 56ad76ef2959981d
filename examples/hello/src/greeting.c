#include <stdio.h>
#include "greeting.h"

int greeting(char *buf, int size, const char *who) {
  return snprintf(buf, (size_t)size, "hello, %s!", who);
}
