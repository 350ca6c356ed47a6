# Grouped binomial responses and odds ratios against R's glm, for tests/test_grouped_binomial.py
# and tests/test_odds_ratios.py (CI has no R).
# Run from this folder: Rscript grouped_binomial.R   (writes grouped_binomial.csv)
#
# Data: star98.csv, the California STAR 1998 school data (303 counties; NABOVE and NBELOW the
# students above and below the national median in maths) of Jeff Gill, "Generalized Linear
# Models: A Unified Approach" (Sage, 2001), as statsmodels ships it
# (statsmodels.datasets.star98.load_pandas().data, written with DataFrame.to_csv, index dropped;
# the interaction columns are the products the dataset stores).  profile_confint_data.csv: MASS's
# birthwt as profile_confint.R saves it.
#
# case star98: glm(cbind(NABOVE, NBELOW) ~ <the 20 columns>, family = binomial): coefficients,
#   standard errors, deviance, null deviance, their degrees of freedom, AIC, logLik, BIC, nobs;
#   per county the fitted values, residuals of each type (deviance, pearson, response, working),
#   hatvalues, cooks.distance, rstandard; predict(se.fit = TRUE) on the first rows (link and
#   response scales); drop1(test = "Chisq"); anova(small, full, test = "Chisq") against
#   case star98_small (the six main effects that enter no product; with its sandwich standard
#   errors, sandwich's vcovHC and vcovCL); odds ratios
#   exp(cbind(coef, confint.default)) and the exponentiated profile intervals.
# case birthwt: glm(low ~ age + lwt + smoke + ht + ui, family = binomial) (0/1 rows): odds
#   ratios with the Wald and the profile intervals.
# Profile intervals: R's confint (MASS's profile.glm) interpolates a spline through a few points
#   of the profile, good to about 1e-4; "or_profile" is the same interval solved tightly (the
#   deviance of glm.fit with the parameter held by an offset, the root by uniroot, tol 1e-12),
#   as profile_confint.R does; "or_confint" keeps R's own spline-based confint.
# Output: long CSV with columns case, quantity, term, value.
options(digits = 17)
suppressPackageStartupMessages({library(MASS); library(sandwich)})
tight <- glm.control(epsilon = 1e-14, maxit = 100)
rows <- list()
add <- function(case, quantity, term, value) {
  rows[[length(rows) + 1]] <<- data.frame(case = case, quantity = quantity, term = term,
                                          value = as.numeric(value))
}

star <- read.csv("star98.csv")
columns <- setdiff(names(star), c("NABOVE", "NBELOW"))
full_formula <- as.formula(paste("cbind(NABOVE, NBELOW) ~", paste(columns, collapse = " + ")))
small_columns <- c("LOWINC", "PERASIAN", "PERBLACK", "PERHISP", "PCTCHRT", "PCTYRRND")
small_formula <- as.formula(paste("cbind(NABOVE, NBELOW) ~",
                                  paste(small_columns, collapse = " + ")))
full <- glm(full_formula, family = binomial, data = star, control = tight)
small <- glm(small_formula, family = binomial, data = star, control = tight)
# glm stops on the deviance's relative change and computes the standard errors and hat values at
# the weights of the step before: on star98 that leaves 4e-7 in a hat value and 5e-8 in a standard
# error.  Two more IRLS steps from the fit polish them (as glm_workflow.R does); drop1, anova and
# confint refit, and take the tightly converged fits with their own control.
polish <- function(fit) {
  for (k in 1:2) {
    fit <- suppressWarnings(update(fit, start = coef(fit),
                                   control = glm.control(epsilon = 1e-10, maxit = 1)))
  }
  fit
}
full_p <- polish(full)

record <- function(case, fit) {
  s <- summary(fit)
  cf <- coef(fit)
  for (k in seq_along(cf)) {
    add(case, "coef", names(cf)[k], cf[k])
    add(case, "se", names(cf)[k], s$coefficients[k, 2])
  }
  add(case, "deviance", "", fit$deviance)
  add(case, "null_deviance", "", fit$null.deviance)
  add(case, "df_residual", "", fit$df.residual)
  add(case, "df_null", "", fit$df.null)
  add(case, "aic", "", fit$aic)
  add(case, "loglik", "", as.numeric(logLik(fit)))
  add(case, "bic", "", BIC(fit))
  add(case, "nobs", "", nobs(fit))
}
record("star98", full_p)
small_p <- polish(small)
record("star98_small", small_p)
# sandwich covariances of the grouped fit (estfun: one score per county): vcovHC HC0 and HC1
# (n/(n-k), n the counties), vcovCL by 25 clusters of counties (type HC0: G/(G-1); type HC1: also
# (n-1)/(n-k))
cl <- (seq_len(nrow(star)) - 1) %% 25
robust <- list(se_HC0 = vcovHC(small_p, type = "HC0"), se_HC1 = vcovHC(small_p, type = "HC1"),
               se_cluster = vcovCL(small_p, cluster = cl, type = "HC0"),
               se_cluster_HC1 = vcovCL(small_p, cluster = cl, type = "HC1"))
for (q in names(robust)) {
  se <- sqrt(diag(robust[[q]]))
  for (k in seq_along(se)) add("star98_small", q, names(se)[k], se[k])
}

# an offset with grouped counts (R's null deviance refits the intercept with the offset)
star$o <- 0.01 * star$PCTAF
with_offset <- glm(cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + offset(o), family = binomial,
                   data = star, control = tight)
record("star98_offset", polish(with_offset))
add("star98_offset", "null_deviance_refit", "", with_offset$null.deviance)
star$o <- NULL

per_row <- list(fitted = fitted(full_p),
                deviance_residuals = residuals(full_p, type = "deviance"),
                pearson_residuals = residuals(full_p, type = "pearson"),
                response_residuals = residuals(full_p, type = "response"),
                working_residuals = residuals(full_p, type = "working"),
                hat = hatvalues(full_p), cooks_distance = cooks.distance(full_p),
                standardized_residuals = rstandard(full_p))
for (q in names(per_row)) for (i in seq_along(per_row[[q]])) add("star98", q, i, per_row[[q]][i])

new <- star[1:10, ]
link <- predict(full_p, newdata = new, type = "link", se.fit = TRUE)
response <- predict(full_p, newdata = new, type = "response", se.fit = TRUE)
for (i in 1:10) {
  add("star98", "linpred", i, link$fit[i])
  add("star98", "linpred_se", i, link$se.fit[i])
  add("star98", "mean", i, response$fit[i])
  add("star98", "mean_se", i, response$se.fit[i])
}

d1 <- drop1(full, test = "Chisq")
for (term in rownames(d1)) {
  add("star98", "drop1_df", term, d1[term, "Df"])
  add("star98", "drop1_deviance", term, d1[term, "Deviance"])
  add("star98", "drop1_aic", term, d1[term, "AIC"])
  add("star98", "drop1_lrt", term, d1[term, "LRT"])
  add("star98", "drop1_p", term, d1[term, "Pr(>Chi)"])
}
a <- anova(small, full, test = "Chisq")
add("star98", "anova_resid_df", "small", a[1, "Resid. Df"])
add("star98", "anova_resid_dev", "small", a[1, "Resid. Dev"])
add("star98", "anova_resid_df", "full", a[2, "Resid. Df"])
add("star98", "anova_resid_dev", "full", a[2, "Resid. Dev"])
add("star98", "anova_df", "", a[2, "Df"])
add("star98", "anova_deviance", "", a[2, "Deviance"])
add("star98", "anova_p", "", a[2, "Pr(>Chi)"])

# the profile interval of each parameter, solved tightly (see the header)
exact_profile <- function(fit, X, y, wts, level = 0.95) {
  z <- qnorm(1 - (1 - level) / 2)
  b <- coef(fit)
  se <- sqrt(diag(vcov(fit)))
  dev0 <- deviance(fit)
  profile_dev <- function(j, t) {
    refit <- glm.fit(X[, -j, drop = FALSE], y, weights = wts, offset = t * X[, j],
                     family = binomial(), control = tight)
    refit$deviance - dev0
  }
  out <- matrix(NA_real_, length(b), 2)
  for (j in seq_along(b)) {
    signed <- function(t) sign(t - b[j]) * sqrt(max(profile_dev(j, t), 0))
    out[j, 1] <- uniroot(function(t) signed(t) + z, c(b[j] - 3 * z * se[j], b[j]),
                         extendInt = "upX", tol = 1e-12)$root
    out[j, 2] <- uniroot(function(t) signed(t) - z, c(b[j], b[j] + 3 * z * se[j]),
                         extendInt = "upX", tol = 1e-12)$root
  }
  out
}

odds_ratios <- function(case, fit, X, y, wts) {
  wald <- exp(cbind(coef(fit), confint.default(polish(fit))))
  profile <- exp(cbind(coef(fit), exact_profile(polish(fit), X, y, wts)))
  spline <- exp(cbind(coef(fit), suppressMessages(confint(fit))))
  for (k in seq_len(nrow(wald))) {
    term <- rownames(wald)[k]
    add(case, "or", term, wald[k, 1])
    add(case, "or_wald_lower", term, wald[k, 2])
    add(case, "or_wald_upper", term, wald[k, 3])
    add(case, "or_profile_lower", term, profile[k, 2])
    add(case, "or_profile_upper", term, profile[k, 3])
    add(case, "or_confint_lower", term, spline[k, 2])
    add(case, "or_confint_upper", term, spline[k, 3])
  }
}
m <- star$NABOVE + star$NBELOW
odds_ratios("star98", full, cbind(1, as.matrix(star[, columns])), star$NABOVE / m, m)

birthwt <- read.csv("profile_confint_data.csv")
bw <- glm(low ~ age + lwt + smoke + ht + ui, family = binomial, data = birthwt, control = tight)
record("birthwt", polish(bw))
odds_ratios("birthwt", bw, cbind(1, as.matrix(birthwt[, c("age", "lwt", "smoke", "ht", "ui")])),
            birthwt$low, rep(1, nrow(birthwt)))

write.csv(do.call(rbind, rows), "grouped_binomial.csv", row.names = FALSE)
