/* The structures whose layout the paper compares between the i386 (ILP32) and x86-64 (LP64) ABIs. One object of
   each, so that the linker's symbol table gives its size. */
struct record {
  char tag;
  long id;
  double value;
  void *next;
};

struct pair {
  short a;
  long b;
};

struct sample {
  long long when;
  char flag;
};

struct record record;
struct pair pair;
struct sample sample;
