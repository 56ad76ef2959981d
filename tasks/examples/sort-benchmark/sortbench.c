/* Sorts N pseudo-random integers with qsort and writes results.json (n, sorted, seconds). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int compare(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  if (n <= 0) n = 100000;
  int *values = malloc(sizeof(int) * (size_t)n);
  if (!values) return 1;
  unsigned state = 12345u;
  for (long i = 0; i < n; i++) {
    state = state * 1103515245u + 12345u;
    values[i] = (int)(state >> 1);
  }
  clock_t start = clock();
  qsort(values, (size_t)n, sizeof(int), compare);
  double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
  int sorted = 1;
  for (long i = 1; i < n; i++) sorted &= values[i - 1] <= values[i];
  FILE *out = fopen("results.json", "w");
  if (!out) return 1;
  fprintf(out, "{\"n\": %ld, \"sorted\": %d, \"seconds\": %f}\n", n, sorted, seconds);
  fclose(out);
  printf("sorted %ld integers in %f s\n", n, seconds);
  free(values);
  return sorted ? 0 : 2;
}
