// Least-squares line fits of the paper's synthetic series, solved with Eigen's QR decomposition.
// Usage: ./fit NAME   (record, steep or flat); writes results.json and prints the fitted line.
#include <Eigen/Dense>
#include <cstdio>
#include <cstring>

struct Series {
  const char *name;
  int n;
  double slope, intercept;
};

static const Series SERIES[] = {
    {"record", 10, 3.0, 2.0},
    {"steep", 20, -1.5, 10.0},
    {"flat", 8, 0.25, -4.0},
};

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s NAME\n", argv[0]);
    return 2;
  }
  for (const Series &s : SERIES) {
    if (std::strcmp(s.name, argv[1]) != 0) continue;
    Eigen::MatrixXd a(s.n, 2);
    Eigen::VectorXd b(s.n);
    for (int i = 0; i < s.n; i++) {
      double noise = ((i * 7) % 5 - 2) * 0.1;  // the measurement error of the paper's instrument
      a(i, 0) = i;
      a(i, 1) = 1.0;
      b(i) = s.slope * i + s.intercept + noise;
    }
    Eigen::Vector2d fit = a.colPivHouseholderQr().solve(b);
    std::FILE *out = std::fopen("results.json", "w");
    if (!out) return 1;
    std::fprintf(out, "{\"name\": \"%s\", \"slope\": %.4f, \"intercept\": %.4f}\n", s.name, fit(0), fit(1));
    std::fclose(out);
    std::printf("%s: slope=%.4f intercept=%.4f\n", s.name, fit(0), fit(1));
    return 0;
  }
  std::fprintf(stderr, "no series %s\n", argv[1]);
  return 1;
}
