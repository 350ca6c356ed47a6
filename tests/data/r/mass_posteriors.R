# MASS's predict.lda / predict.qda posteriors ('plug-in', 'predictive', 'debiased') on iris, for
# tests/test_predictive.py.  Run from this folder: Rscript mass_posteriors.R  (writes
# mass_posteriors.csv).  linclass implements the textbook formulas; the cases below are those where
# MASS's code gives the same (see linclass.generative.predictive for where it differs).
suppressPackageStartupMessages(library(MASS))
x <- as.matrix(iris[, 1:4])
g <- iris$Species
out <- list()
add <- function(case, post) {
  out[[length(out) + 1]] <<- data.frame(case = case, row = seq_len(nrow(post)) - 1,
                                        p0 = post[, 1], p1 = post[, 2], p2 = post[, 3])
}
# plug-in, the default 'moment' divisors (linclass: unbiased=True)
add("lda_plugin", predict(lda(x, g), x, method = "plug-in")$posterior)
add("qda_plugin", predict(qda(x, g), x, method = "plug-in")$posterior)
# predictive QDA: equal class sizes (MASS leaves out a Gamma factor that then cancels), and the
# 'mle' fit (whose covariance gives the textbook quadratic form)
add("qda_predictive", predict(qda(x, g, method = "mle"), x, method = "predictive")$posterior)
# debiased LDA: equal class sizes and p <= K - 1 (two features, three classes)
x2 <- x[, 1:2]
add("lda_debiased_2", predict(lda(x2, g), x2, method = "debiased")$posterior)
res <- do.call(rbind, out)
write.csv(format(res, digits = 17), "mass_posteriors.csv", row.names = FALSE, quote = FALSE)
cat("MASS", as.character(packageVersion("MASS")), R.version.string, "\n")
