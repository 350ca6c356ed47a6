# Leave-one-out posteriors of MASS::lda(CV = TRUE) and MASS::qda(CV = TRUE) on iris, for
# tests/test_leave_one_out.py.  Run from this folder: Rscript mass_loo.R  (writes mass_loo.csv)
# MASS holds the priors at the full data's proportions in its leave-one-out; the test passes
# priors= to linclass accordingly.
suppressPackageStartupMessages(library(MASS))
x <- as.matrix(iris[, 1:4])
g <- iris$Species
# an unbalanced subset too, where holding the priors matters
keep <- c(1:50, 51:80, 101:140)
out <- list()
for (subset in c("all", "unbalanced")) {
  rows <- if (subset == "all") seq_len(nrow(x)) else keep
  for (method in c("mle", "moment")) {
    for (model in c("lda", "qda")) {
      fit <- if (model == "lda") lda(x[rows, ], g[rows], CV = TRUE, method = method)
             else qda(x[rows, ], g[rows], CV = TRUE, method = method)
      post <- fit$posterior
      out[[length(out) + 1]] <- data.frame(
        subset = subset, model = model, method = method, row = rows - 1,
        p0 = post[, 1], p1 = post[, 2], p2 = post[, 3])
    }
  }
}
res <- do.call(rbind, out)
write.csv(format(res, digits = 17), "mass_loo.csv", row.names = FALSE, quote = FALSE)
cat("MASS", as.character(packageVersion("MASS")), "R", R.version.string, "\n")
