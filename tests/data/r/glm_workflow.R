# The statistician's workflow against R's glm, for tests/test_glm_workflow.py (CI has no R).
# Run from this folder: Rscript glm_workflow.R   (writes glm_pima.csv, glm_infert.csv, glm_ucb.csv
# and glm_workflow.csv)
#
# Data: MASS's birthwt as profile_confint.R saves it (profile_confint_data.csv), MASS's Pima.tr,
# datasets' infert and UCBAdmissions (as a data frame of counts: one row per cell, Freq the
# frequency weight).  For each case glm(..., family = binomial) at a tight tolerance, and:
#   coefficients and standard errors (NA where R aliases a column), deviance, null deviance and
#   their degrees of freedom, AIC, vcov; with an offset, predict(se.fit = TRUE) on rows with their
#   own offsets, hatvalues / cooks.distance / rstandard, drop1 and anova against a smaller model.
# Output: long CSV with columns case, quantity, term, value.
options(digits = 17)
suppressPackageStartupMessages(library(MASS))
tight <- glm.control(epsilon = 1e-14, maxit = 100)
rows <- list()
add <- function(case, quantity, term, value) {
  rows[[length(rows) + 1]] <<- data.frame(case = case, quantity = quantity, term = term,
                                          value = as.numeric(value))
}
# glm stops on the deviance's relative change, which squares the coefficients' error: on a flat
# direction (UCBAdmissions' department F) that leaves 3e-7 in a standard error, which R computes
# at the weights of the step before.  Two more IRLS steps from the fit polish both (aliased
# coefficients start at 0; epsilon = 1e-10 keeps glm.fit's QR tolerance at 1e-13, which finds
# them again).
polish <- function(fit) {
  for (k in 1:2) {
    start <- coef(fit)
    start[is.na(start)] <- 0
    fit <- suppressWarnings(update(fit, start = start,
                                   control = glm.control(epsilon = 1e-10, maxit = 1)))
  }
  fit
}
record <- function(case, fit) {
  null_deviance <- fit$null.deviance  # with an offset, a fit of its own (not polished by maxit = 1)
  fit <- polish(fit)
  s <- summary(fit)
  cf <- coef(fit)
  se <- rep(NA_real_, length(cf)); names(se) <- names(cf)
  se[rownames(s$coefficients)] <- s$coefficients[, 2]
  for (k in seq_along(cf)) {
    add(case, "coef", names(cf)[k], cf[k])
    add(case, "se", names(cf)[k], se[k])
  }
  add(case, "deviance", "", fit$deviance)
  add(case, "null_deviance", "", null_deviance)
  add(case, "df_residual", "", fit$df.residual)
  add(case, "df_null", "", fit$df.null)
  add(case, "aic", "", fit$aic)
  v <- vcov(fit)  # the estimable parameters only
  for (a in rownames(v)) for (b in colnames(v)) add(case, "vcov", paste(a, b, sep = ":"), v[a, b])
}

birthwt <- read.csv("profile_confint_data.csv")
pima <- Pima.tr
pima$diabetic <- as.integer(pima$type == "Yes")
pima$type <- NULL
write.csv(pima, "glm_pima.csv", row.names = FALSE)
inf <- infert[, c("age", "parity", "induced", "spontaneous", "case")]
write.csv(inf, "glm_infert.csv", row.names = FALSE)
ucb <- as.data.frame(UCBAdmissions)
ucb$admitted <- as.integer(ucb$Admit == "Admitted")
ucb <- ucb[, c("admitted", "Gender", "Dept", "Freq")]
write.csv(ucb, "glm_ucb.csv", row.names = FALSE)

# ---- deviance tables (summary.glm) on the four data sets
record("birthwt", glm(low ~ age + lwt + smoke + ht + ui, binomial, birthwt, control = tight))
record("pima", glm(diabetic ~ npreg + glu + bmi + ped + age, binomial, pima, control = tight))
record("infert", glm(case ~ age + parity + induced + spontaneous, binomial, inf, control = tight))
record("ucb", glm(admitted ~ Gender + Dept, binomial, ucb, weights = Freq, control = tight))

# ---- offsets
birthwt$o <- 0.02 * (birthwt$lwt - 120)
new <- birthwt[1:12, ]
new$o <- seq(-1, 1, length.out = 12)
for (weighted in c(FALSE, TRUE)) {
  case <- if (weighted) "offset_weighted" else "offset"
  birthwt$w <- if (weighted) birthwt$freq else 1
  fit <- glm(low ~ age + smoke + ht + ui, binomial, birthwt, weights = w, offset = o,
             control = tight)
  record(case, fit)
  dd <- drop1(fit, test = "Chisq")  # drop1 refits with the fit's control: the tight one
  fit <- polish(fit)
  p <- predict(fit, newdata = new, type = "link", se.fit = TRUE)
  for (i in seq_along(p$fit)) {
    add(case, "predict_link", i, p$fit[i])
    add(case, "predict_se", i, p$se.fit[i])
  }
  h <- hatvalues(fit); cd <- cooks.distance(fit); rs <- rstandard(fit)
  for (i in seq_along(h)) {
    add(case, "hat", i, h[i]); add(case, "cooks", i, cd[i]); add(case, "rstandard", i, rs[i])
  }
  for (k in 2:nrow(dd)) {
    add(case, "drop1_deviance", rownames(dd)[k], dd$Deviance[k])
    add(case, "drop1_lrt", rownames(dd)[k], dd$LRT[k])
  }
  small <- polish(glm(low ~ age + smoke, binomial, birthwt, weights = w, offset = o,
                      control = tight))
  a <- anova(small, fit, test = "Chisq")
  add(case, "anova_lrt", "", a$Deviance[2])
  add(case, "anova_p", "", a[["Pr(>Chi)"]][2])
}
pima$o <- log(pima$age)
record("offset_pima", glm(diabetic ~ glu + bmi + ped, binomial, pima, offset = o,
                          control = tight))
record("offset_pima_no_intercept", glm(diabetic ~ 0 + glu + bmi + ped, binomial, pima, offset = o,
                                       control = tight))

# ---- aliased columns (NA coefficients): glm.fit's QR tolerance is min(1e-7, epsilon / 1000), so
# the tight epsilon above would leave them in; epsilon = 1e-10 (tolerance 1e-13) finds them and
# still stops within about 1e-10 of the optimum (Newton's last step squares the error)
alias_control <- glm.control(epsilon = 1e-10, maxit = 100)
birthwt$r1 <- as.integer(birthwt$race == 1)
birthwt$r2 <- as.integer(birthwt$race == 2)
birthwt$r3 <- as.integer(birthwt$race == 3)
record("aliased_race", glm(low ~ age + lwt + r1 + r2 + r3 + smoke, binomial, birthwt,
                           control = alias_control))
inf$total <- inf$induced + inf$spontaneous
record("aliased_total", glm(case ~ age + induced + total + spontaneous + parity, binomial, inf,
                            control = alias_control))

write.csv(do.call(rbind, rows), "glm_workflow.csv", row.names = FALSE)
