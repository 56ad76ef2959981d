# A tiny "paper" in R: fit a linear model to simulated data and write the estimates as JSON.
# Usage: Rscript fit.R [samples]
library(jsonlite)

args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) > 0) as.integer(args[[1]]) else 500L
set.seed(11)
x <- runif(n, -1, 1)
y <- 3 * x - 0.5 + rnorm(n, sd = 0.1)
fit <- lm(y ~ x)
est <- unname(coef(fit))
write_json(list(n = n, intercept = est[[1]], slope = est[[2]], r = as.character(getRversion())),
           "results.json", auto_unbox = TRUE, digits = NA)
cat(sprintf("fitted %d samples: slope=%.3f intercept=%.3f\n", n, est[[2]], est[[1]]))
