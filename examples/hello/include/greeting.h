#ifndef GREETING_H
#define GREETING_H
/* Writes a greeting for `who` into `buf` (at most `size` bytes) and returns its length. */
int greeting(char *buf, int size, const char *who);
#endif
