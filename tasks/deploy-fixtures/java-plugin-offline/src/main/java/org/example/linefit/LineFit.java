package org.example.linefit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Locale;
import org.apache.commons.math3.stat.regression.SimpleRegression;

/**
 * Fits a least-squares line through n generated points: y = 3x + 2, each x twice, with noise +u and -u (u from a
 * fixed linear congruential generator), so the fitted line is the true one and only r2 depends on the noise.
 */
public final class LineFit {
  public static void main(String[] args) throws IOException {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10000;
    SimpleRegression fit = new SimpleRegression();
    long state = 42;
    double u = 0;
    for (int i = 0; i < n; i++) {
      double x = (i / 2) * 0.01;
      if (i % 2 == 0) {
        state = (state * 6364136223846793005L + 1442695040888963407L);
        u = ((state >>> 11) / (double) (1L << 53)) * 4.0;
      }
      // an odd n leaves the last point unpaired: it lies on the line
      double noise = (i % 2 == 0) ? (i == n - 1 ? 0 : u) : -u;
      fit.addData(x, 3 * x + 2 + noise);
    }
    String json =
        String.format(
            Locale.ROOT,
            "{\"n\": %d, \"slope\": %.6f, \"intercept\": %.6f, \"r2\": %.6f}%n",
            fit.getN(),
            fit.getSlope(),
            fit.getIntercept(),
            fit.getRSquare());
    Files.write(Paths.get("results.json"), json.getBytes(StandardCharsets.UTF_8));
    System.out.printf(
        Locale.ROOT, "n=%d slope=%.4f intercept=%.4f%n", fit.getN(), fit.getSlope(), fit.getIntercept());
  }
}
