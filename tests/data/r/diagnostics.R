# Reference values for the regression diagnostics of an unpenalised logistic fit
# (tests/test_diagnostics.py).
# Run from this folder: Rscript diagnostics.R
#   (writes diagnostics.data.csv: MASS's birthwt columns used and the weights w;
#    diagnostics_reference.csv: one row per observation and fit)
#
# Two fits of glm(low ~ age + lwt + smoke + ht + ui, family = binomial) on MASS's birthwt:
# without weights ("unweighted") and with the integer prior weights w = 1 + (i %% 3)
# ("weighted").  For each: fitted() (the probabilities), residuals(type = "deviance"),
# residuals(type = "pearson"), hatvalues(), cooks.distance() and rstandard() (deviance-based,
# dispersion 1 for the binomial family).
suppressPackageStartupMessages(library(MASS))

d <- birthwt[, c("low", "age", "lwt", "smoke", "ht", "ui")]
n <- nrow(d)
d$w <- 1 + (seq_len(n) %% 3)
write.csv(d, "diagnostics.data.csv", row.names = FALSE)

measures <- function(fit, name) {
  data.frame(fit = name, row = seq_len(n),
             fitted = unname(fitted(fit)),
             deviance_residuals = unname(residuals(fit, type = "deviance")),
             pearson_residuals = unname(residuals(fit, type = "pearson")),
             hat = unname(hatvalues(fit)),
             cooks_distance = unname(cooks.distance(fit)),
             standardized_residuals = unname(rstandard(fit)))
}

f0 <- glm(low ~ age + lwt + smoke + ht + ui, family = binomial, data = d,
          control = glm.control(epsilon = 1e-14, maxit = 100))
f1 <- glm(low ~ age + lwt + smoke + ht + ui, family = binomial, data = d, weights = w,
          control = glm.control(epsilon = 1e-14, maxit = 100))
out <- rbind(measures(f0, "unweighted"), measures(f1, "weighted"))
write.csv(out, "diagnostics_reference.csv", row.names = FALSE)
