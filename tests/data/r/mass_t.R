# MASS::lda(method = "t") on two Gaussian classes where 5% of the rows (10 of class 0) are gross
# outliers (t_outliers.csv: clean x1, x2; contaminated o1, o2; y), for tests/test_robust.py.
# Run from this folder: Rscript mass_t.R  (writes mass_t.csv).  MASS stops its EM when no case
# weight changes by 0.01 (and prints each iteration's weight summary); linclass iterates to the
# fixed point, so the test compares to that tolerance.
suppressPackageStartupMessages(library(MASS))
d <- read.csv("t_outliers.csv")
x <- as.matrix(d[, c("o1", "o2")])
fit <- suppressWarnings(capture.output(f <- lda(x, factor(d$y), method = "t", nu = 5)))
post <- predict(f, x)$posterior
res <- data.frame(row = seq_len(nrow(x)) - 1, p0 = post[, 1], p1 = post[, 2])
write.csv(format(res, digits = 17), "mass_t.csv", row.names = FALSE, quote = FALSE)
write.csv(format(as.data.frame(f$means), digits = 17), "mass_t_means.csv", row.names = FALSE,
          quote = FALSE)
cat("MASS", as.character(packageVersion("MASS")), R.version.string, "\n")
