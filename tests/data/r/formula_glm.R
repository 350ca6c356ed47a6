# Logistic fits written as formulas with factors, for tests/test_formula.py (CI has no R).
# Run from this folder: Rscript formula_glm.R
#   (writes formula_birthwt.csv, the rows; formula_glm.csv, each fit's coefficients and standard
#    errors; formula_glm_fit.csv, its deviances and AIC; formula_glm_drop1.csv, drop1's tables)
#
# MASS's birthwt (Hosmer and Lemeshow), 189 births, with race as a factor labelled white / black /
# other (R's default reference: white) and freq = 1 + (row %% 3) integer frequency weights (as
# profile_confint.R).  Each case is glm(family = binomial) with epsilon 1e-14; the Python formula
# that tests/test_formula.py fits for it is in the comment beside it.  glm's standard errors are
# those of the weights of the step before its last (7e-8 relative in the race x smoke fit here): two
# more single IRLS steps from the fit bring them to the converged weights.  drop1(fit, test =
# "Chisq") drops whole terms (both columns of race at once) and only terms that no other term
# contains (on the fit itself: its refits take the fit's control).
options(digits = 17)
suppressPackageStartupMessages(library(MASS))

data(birthwt)
d <- birthwt[, c("low", "age", "lwt", "race", "smoke", "ptl", "ht", "ui")]
d$race_code <- d$race  # the integer codes 1, 2, 3
d$race <- factor(d$race, levels = 1:3, labels = c("white", "black", "other"))
d$freq <- 1 + (seq_len(nrow(d)) %% 3)
write.csv(d, "formula_birthwt.csv", row.names = FALSE)
d_other <- transform(d, race = relevel(race, ref = "other"))

cases <- list(
  # low ~ age + lwt + C(race, Treatment('white')) + smoke
  treatment_white = list(formula = low ~ age + lwt + race + smoke, data = d, weighted = FALSE),
  # low ~ age + lwt + C(race, Treatment('other')) + smoke
  treatment_other = list(formula = low ~ age + lwt + race + smoke, data = d_other, weighted = FALSE),
  # the first, with frequency weights freq
  weighted = list(formula = low ~ age + lwt + race + smoke, data = d, weighted = TRUE),
  # low ~ age + lwt + C(race, Treatment('white')) * smoke
  race_smoke = list(formula = low ~ age + lwt + race * smoke, data = d, weighted = FALSE),
  # the same, weighted
  race_smoke_weighted = list(formula = low ~ age + lwt + race * smoke, data = d, weighted = TRUE),
  # low ~ age * smoke + lwt + C(race, Treatment('white'))
  age_smoke = list(formula = low ~ age * smoke + lwt + race, data = d, weighted = FALSE),
  # low ~ 0 + C(race, Treatment('white')) + age + lwt   (no intercept: a column per level)
  no_intercept = list(formula = low ~ 0 + race + age + lwt, data = d, weighted = FALSE),
  # low ~ C(race, contr.sum, levels=['white', 'black', 'other']) + age
  sum_coding = list(formula = low ~ C(race, contr.sum) + age, data = d, weighted = FALSE),
  # low ~ np.log(lwt) + I(age ** 2) + C(race, Treatment('white'))
  transforms = list(formula = low ~ log(lwt) + I(age^2) + race, data = d, weighted = FALSE),
  # low ~ age + lwt + C(race_code)   (a factor of integer codes)
  integer_factor = list(formula = low ~ age + lwt + factor(race_code), data = d, weighted = FALSE),
  # low ~ age + C(race, Treatment('white')) + smoke + offset(np.log(lwt))
  offset = list(formula = low ~ age + race + smoke + offset(log(lwt)), data = d, weighted = FALSE),
  # the same, weighted
  offset_weighted = list(formula = low ~ age + race + smoke + offset(log(lwt)), data = d,
                         weighted = TRUE)
)
drop1_cases <- c("treatment_white", "weighted", "race_smoke", "age_smoke", "offset_weighted")

one_more_step <- function(fit) {
  update(fit, start = coef(fit), control = glm.control(epsilon = 1e-14, maxit = 1))
}

coefs <- list(); fits <- list(); drops <- list()
for (name in names(cases)) {
  case <- cases[[name]]
  dd <- case$data
  dd$w <- if (case$weighted) dd$freq else rep(1, nrow(dd))
  fit <- glm(case$formula, family = binomial, data = dd, weights = w,
             control = glm.control(epsilon = 1e-14, maxit = 100))
  polished <- suppressWarnings(one_more_step(one_more_step(fit)))  # (maxit = 1: "not converged")
  coefs[[name]] <- data.frame(case = name, term = names(coef(polished)),
                              estimate = unname(coef(polished)),
                              std_err = unname(sqrt(diag(vcov(polished)))))
  fits[[name]] <- data.frame(case = name, deviance = deviance(polished),
                             null_deviance = fit$null.deviance, aic = AIC(polished),
                             df_residual = polished$df.residual)
  if (name %in% drop1_cases) {
    dr <- drop1(fit, test = "Chisq")
    drops[[name]] <- data.frame(case = name, term = rownames(dr), df = dr$Df, deviance = dr$Deviance,
                                aic = dr$AIC, lrt = dr$LRT, p = dr[["Pr(>Chi)"]])
  }
}
write.csv(do.call(rbind, coefs), "formula_glm.csv", row.names = FALSE)
write.csv(do.call(rbind, fits), "formula_glm_fit.csv", row.names = FALSE)
write.csv(do.call(rbind, drops), "formula_glm_drop1.csv", row.names = FALSE)
