# A tiny "paper" in R with Bioconductor: differential expression of simulated genes between two groups with
# limma's moderated t-test (lmFit, eBayes, topTable), the genes called at a false discovery rate of 5 %.
# Usage: Rscript de.R [genes]
library(limma)
library(jsonlite)

args <- commandArgs(trailingOnly = TRUE)
genes <- if (length(args) > 0) as.integer(args[[1]]) else 2000L
set.seed(29)
group <- factor(rep(c("control", "treated"), each = 3))
expr <- matrix(rnorm(genes * length(group), mean = 8, sd = 0.5), nrow = genes,
               dimnames = list(sprintf("g%05d", seq_len(genes)), NULL))
changed <- seq_len(genes %/% 10)
expr[changed, group == "treated"] <- expr[changed, group == "treated"] + 2
fit <- eBayes(lmFit(expr, model.matrix(~ group)))
called <- rownames(topTable(fit, coef = 2, number = Inf, p.value = 0.05))
hits <- sum(called %in% rownames(expr)[changed])
write_json(list(genes = genes, changed = length(changed), called = length(called),
                recall = hits / length(changed), precision = if (length(called)) hits / length(called) else 0,
                limma = as.character(packageVersion("limma"))),
           "results.json", auto_unbox = TRUE, digits = NA)
cat(sprintf("limma: %d of %d genes called at FDR 0.05, %d of the %d changed ones\n",
            length(called), genes, hits, length(changed)))
