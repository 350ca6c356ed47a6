# Cluster-robust and heteroscedasticity-robust covariances of a logit (glm, binomial) from R's
# sandwich package, for tests/test_cluster_correction.py: which small-sample factor each call uses.
#   vcovCL(m, cluster = ~g)                          G/(G-1)            (type "HC0", cadjust = TRUE:
#                                                                        the default for a glm; Stata's
#                                                                        logit, vce(cluster g))
#   vcovCL(m, cluster = ~g, type = "HC1")            G/(G-1) (N-1)/(N-k) (statsmodels' default)
#   vcovCL(m, cluster = ~g, type = "HC0", cadjust = FALSE)  none
#   vcovHC(m, type = "HC0"), vcovHC(m, type = "HC1")  none, N/(N-k)
#   vcovCL(m, type = "HC0")                           N/(N-1): each row its own cluster (Stata's
#                                                     logit, vce(robust))
# Data: R's infert (datasets::infert, case ~ spontaneous + induced, clusters: stratum, 83 of
# them, N = 248) and spector.csv (written by spector_export.py: GRADE ~ GPA + TUCE + PSI, N = 32,
# clusters: class_id, 8 of them).
# Run from this folder: Rscript sandwich.R  (writes infert.csv and sandwich_reference.csv: case,
# call, row, col, value; the covariance matrices in long form, rows and columns in the order
# (Intercept), then the terms)
suppressPackageStartupMessages(library(sandwich))
infert_rows <- datasets::infert[, c("case", "spontaneous", "induced", "stratum")]
write.csv(infert_rows, "infert.csv", row.names = FALSE, quote = FALSE)
spector <- read.csv("spector.csv")
cases <- list(
  infert = list(m = glm(case ~ spontaneous + induced, family = binomial, data = infert_rows),
                g = ~stratum),
  spector = list(m = glm(GRADE ~ GPA + TUCE + PSI, family = binomial, data = spector),
                 g = ~class_id)
)
long <- function(case, call, v) {
  data.frame(case = case, call = call, row = as.vector(row(v)) - 1, col = as.vector(col(v)) - 1,
             value = trimws(format(as.vector(v), digits = 17)))
}
out <- list()
for (name in names(cases)) {
  m <- cases[[name]]$m
  g <- cases[[name]]$g
  m <- update(m, control = glm.control(epsilon = 1e-14, maxit = 100))
  out[[length(out) + 1]] <- long(name, "coef", t(coef(m)))
  out[[length(out) + 1]] <- long(name, "vcov", vcov(m))
  out[[length(out) + 1]] <- long(name, "vcovCL", vcovCL(m, cluster = g))
  out[[length(out) + 1]] <- long(name, "vcovCL_HC1", vcovCL(m, cluster = g, type = "HC1"))
  out[[length(out) + 1]] <- long(name, "vcovCL_HC0_noadjust",
                                 vcovCL(m, cluster = g, type = "HC0", cadjust = FALSE))
  out[[length(out) + 1]] <- long(name, "vcovHC_HC0", vcovHC(m, type = "HC0"))
  out[[length(out) + 1]] <- long(name, "vcovHC_HC1", vcovHC(m, type = "HC1"))
  out[[length(out) + 1]] <- long(name, "vcovCL_rows", vcovCL(m, type = "HC0"))
}
write.csv(do.call(rbind, out), "sandwich_reference.csv", row.names = FALSE, quote = FALSE)
cat("sandwich", as.character(packageVersion("sandwich")), R.version.string, "\n")
