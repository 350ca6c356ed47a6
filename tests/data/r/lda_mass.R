# MASS::lda (method = "moment", the default) on real data sets, for tests/test_lda_summary.py:
# what print.lda shows (prior, group means, the scaling of the linear discriminants) and the
# singular values svd whose squares give the proportion of trace.  Classes are coded 0, 1, ... in
# the order of the factor's levels and the features named x0, x1, ... (as linclass names the
# columns of an array).
# Run from this folder: Rscript lda_mass.R  (writes lda_mass_data.csv, the rows each case is fitted
# on; lda_mass.csv, the fits in long form: case, part, row, col, value; lda_mass_print.txt, what
# print(fit) shows for each case, after a line "## case").
suppressPackageStartupMessages(library(MASS))
cases <- list(
  iris = list(x = as.matrix(iris[, 1:4]), g = iris$Species, prior = NULL),
  iris_prior = list(x = as.matrix(iris[, 1:4]), g = iris$Species, prior = c(0.5, 0.3, 0.2)),
  birthwt = list(x = as.matrix(birthwt[, c("age", "lwt", "ptl", "ftv")]), g = factor(birthwt$low),
                 prior = NULL),
  crabs = list(x = as.matrix(crabs[, c("FL", "RW", "CL", "CW", "BD")]),
               g = factor(paste(crabs$sp, crabs$sex, sep = ".")), prior = NULL),
  pima = list(x = as.matrix(Pima.tr[, 1:7]), g = Pima.tr$type, prior = NULL)
)
data_rows <- list()
fits <- list()
printed <- character()
long <- function(case, part, m) {
  m <- as.matrix(m)
  data.frame(case = case, part = part, row = as.vector(row(m)) - 1, col = as.vector(col(m)) - 1,
             value = as.vector(m))
}
for (name in names(cases)) {
  cs <- cases[[name]]
  g <- as.integer(cs$g) - 1  # classes coded 0, 1, ... in the order of the factor's levels
  x <- cs$x
  colnames(x) <- paste0("x", seq_len(ncol(x)) - 1)
  padded <- matrix(NA_real_, nrow(x), 7)
  padded[, seq_len(ncol(x))] <- x
  data_rows[[name]] <- data.frame(case = name, y = g, padded)
  fit <- if (is.null(cs$prior)) lda(x, g) else lda(x, g, prior = cs$prior)
  printed <- c(printed, paste("##", name), capture.output(print(fit)))
  fits[[name]] <- rbind(long(name, "prior", t(fit$prior)), long(name, "means", fit$means),
                        long(name, "scaling", fit$scaling), long(name, "svd", t(fit$svd)))
}
d <- do.call(rbind, data_rows)
names(d) <- c("case", "y", paste0("x", 0:6))
write.csv(d, "lda_mass_data.csv", row.names = FALSE, quote = FALSE, na = "")
res <- do.call(rbind, fits)
res$value <- format(res$value, digits = 17)
write.csv(res, "lda_mass.csv", row.names = FALSE, quote = FALSE)
writeLines(printed, "lda_mass_print.txt")
cat("MASS", as.character(packageVersion("MASS")), R.version.string, "\n")
