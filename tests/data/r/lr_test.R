# Likelihood-ratio tests of nested logistic models, for tests/test_lr_test.py (CI has no R).
# Run from this folder: Rscript lr_test.R   (writes lr_test.csv)
#
# MASS's birthwt as profile_confint.R saves it (profile_confint_data.csv: low, race, age, lwt,
# smoke, ptl, ht, ui, freq).  anova(small, large, test = "Chisq") for two nested pairs (unweighted,
# and weighted by freq), and drop1(large, test = "Chisq") on the unweighted large model: the
# deviance, the degrees of freedom, the LR statistic and its p-value.
options(digits = 17)
d <- read.csv("profile_confint_data.csv")
rows <- list()
add <- function(case, term, df, deviance, aic, lrt, p) {
  rows[[length(rows) + 1]] <<- data.frame(case = case, term = term, df = df, deviance = deviance,
                                          aic = aic, lrt = lrt, p = p)
}
for (weighted in c(FALSE, TRUE)) {
  w <- if (weighted) d$freq else rep(1, nrow(d))
  small <- glm(low ~ age + lwt, family = binomial, data = d, weights = w,
               control = glm.control(epsilon = 1e-14, maxit = 100))
  large <- glm(low ~ age + lwt + smoke + ht + ui, family = binomial, data = d, weights = w,
               control = glm.control(epsilon = 1e-14, maxit = 100))
  a <- anova(small, large, test = "Chisq")
  case <- if (weighted) "anova_weighted" else "anova"
  add(case, "", a$Df[2], a[["Resid. Dev"]][2], NA, a$Deviance[2], a[["Pr(>Chi)"]][2])
}
large <- glm(low ~ age + lwt + smoke + ht + ui, family = binomial, data = d,
             control = glm.control(epsilon = 1e-14, maxit = 100))
dd <- drop1(large, test = "Chisq")
for (k in seq_len(nrow(dd))) {
  add("drop1", rownames(dd)[k], dd$Df[k], dd$Deviance[k], dd$AIC[k], dd$LRT[k], dd[["Pr(>Chi)"]][k])
}
write.csv(do.call(rbind, rows), "lr_test.csv", row.names = FALSE)
