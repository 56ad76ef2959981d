package org.example.collatz;

import java.io.FileWriter;
import java.io.IOException;
import java.io.Writer;
import java.util.Locale;

/** Collatz stopping times for every start below N (Java 6 style: no lambdas, no try-with-resources). */
public final class Collatz {
  private Collatz() {}

  static int steps(long x) {
    int s = 0;
    while (x != 1) {
      x = (x % 2 == 0) ? x / 2 : 3 * x + 1;
      s++;
    }
    return s;
  }

  public static void main(String[] args) throws IOException {
    int limit = args.length > 0 ? Integer.parseInt(args[0]) : 10000;
    int longest = 0;
    int argmax = 1;
    long total = 0;
    for (int n = 1; n < limit; n++) {
      int s = steps(n);
      total += s;
      if (s > longest) {
        longest = s;
        argmax = n;
      }
    }
    double mean = (double) total / (limit - 1);
    Writer out = new FileWriter("results.json");
    try {
      out.write(
          String.format(
              Locale.ROOT,
              "{\"n\": %d, \"longest\": %d, \"start\": %d, \"mean\": %.4f}%n",
              limit,
              longest,
              argmax,
              mean));
    } finally {
      out.close();
    }
    System.out.println(
        String.format(Locale.ROOT, "n=%d longest=%d start=%d mean=%.4f", limit, longest, argmax, mean));
  }
}
