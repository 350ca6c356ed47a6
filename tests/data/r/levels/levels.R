# Class order of a factor response, for tests/test_levels_order.py: R takes a factor's levels in
# their order (the first is the reference), not sorted.
#   fgl: MASS's forensic glass, type with levels WinF, WinNF, Veh, Con, Tabl, Head (sorted:
#        Con, Head, Tabl, Veh, WinF, WinNF); lda(type ~ ., fgl): prior, means, scaling, svd.
#   birthwt: MASS's birthwt, low as a factor with levels "normal", "low" (sorted: "low" first):
#        glm(low ~ age + lwt + smoke, binomial) models P(low); and race as a factor with levels
#        "white", "black", "other" (sorted: "black" first): multinom(race ~ age + lwt + smoke)
#        with its contrasts against "white".
# Run from this folder: Rscript levels.R  (writes fgl.csv, birthwt.csv and levels_reference.csv:
# case, part, row, col, value; rows and columns in R's order)
suppressPackageStartupMessages({library(MASS); library(nnet)})
write.csv(fgl, "fgl.csv", row.names = FALSE, quote = FALSE)
bw <- data.frame(low = factor(ifelse(birthwt$low == 1, "low", "normal"), levels = c("normal", "low")),
                 race = factor(c("white", "black", "other")[birthwt$race],
                               levels = c("white", "black", "other")),
                 age = birthwt$age, lwt = birthwt$lwt, smoke = birthwt$smoke)
write.csv(bw, "birthwt.csv", row.names = FALSE, quote = FALSE)
long <- function(case, part, m) {
  m <- as.matrix(m)
  data.frame(case = case, part = part, row = as.vector(row(m)) - 1, col = as.vector(col(m)) - 1,
             value = trimws(format(as.vector(m), digits = 17)))
}
fit <- lda(type ~ ., fgl)
out <- list(long("fgl", "prior", t(fit$prior)), long("fgl", "means", fit$means),
            long("fgl", "scaling", fit$scaling), long("fgl", "svd", t(fit$svd)))
g <- glm(low ~ age + lwt + smoke, family = binomial, data = bw,
         control = glm.control(epsilon = 1e-14, maxit = 100))
g <- update(g, start = coef(g))  # vcov at the estimate's own working weights
out <- c(out, list(long("glm", "coef", t(coef(g))), long("glm", "se", t(sqrt(diag(vcov(g)))))))
mn <- multinom(race ~ age + lwt + smoke, data = bw, trace = FALSE, reltol = 1e-16, abstol = 1e-300,
               maxit = 10000)
out <- c(out, list(long("multinom", "coef", coef(mn)),
                   long("multinom", "se", summary(mn)$standard.errors)))
write.csv(do.call(rbind, out), "levels_reference.csv", row.names = FALSE, quote = FALSE)
print(levels(fgl$type)); print(fit$scaling[, 1:2]); print(coef(g)); print(coef(mn))
cat("MASS", as.character(packageVersion("MASS")), "nnet", as.character(packageVersion("nnet")),
    R.version.string, "\n")
