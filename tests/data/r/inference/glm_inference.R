# Reference values for the inference of an unpenalised logistic fit beyond the Wald table
# (tests/test_glm_inference_r.py): the leverage-adjusted and two-way clustered sandwiches, score
# (Rao) tests, the sequential analysis of deviance, influence measures, and the Hosmer-Lemeshow
# test with Stata's grouping.
# Run from this folder: Rscript glm_inference.R
#   (writes birthwt.csv: MASS's birthwt with the race dummies, prior weights w and two cluster
#    variables g1, g2; glm_inference.json: every number the tests read)
#
# The model is Hosmer and Lemeshow's low birth weight model, glm(low ~ age + lwt + race + smoke
# + ptl + ht + ui, family = binomial), on MASS's birthwt (189 rows; race a factor, so two dummy
# columns race2, race3).
#   sandwich     vcovHC(m, type = "HC2" / "HC3"), also on the fit with integer prior weights
#                w = 1 + (i %% 3); vcovCL(m, cluster = ~ g1 + g2) (two-way: Cameron, Gelbach and
#                Miller 2011) with its defaults (type "HC0", cadjust = TRUE, multi0 = FALSE), with
#                type = "HC1", and with cadjust = FALSE
#   score tests  anova(small, large, test = "Rao") for small = low ~ age + lwt + smoke and for the
#                intercept-only model; anova(m, test = "Chisq") and anova(m, test = "Rao")
#   influence    rstudent, dfbetas, dffits, residuals(type = "response" / "working") of the
#                unweighted and the weighted fit
#   Hosmer-Lemeshow  Stata's estat gof, group(10) grouping, written out here: the groups are
#                xtile's quantile groups of the predicted probability, cut points the
#                quantiles of R's type 2 (Stata's default _pctile definition: the inverse of the
#                empirical distribution, averaged at its jumps), a row in the first group whose
#                cut point is at or above its probability, so equal probabilities share a group.
#                Statistic sum_k (O_k - E_k)^2 / (E_k (1 - E_k / n_k)) on (groups formed - 2)
#                degrees of freedom.  Three cases: the full model, a model of three binary
#                covariates (8 distinct probabilities: ties, fewer than 10 groups), and the full
#                model with frequency weights w (as rows repeated w times).
#   offset       anova(test = "Rao") with an offset(o) term (o computed from smoke and age here)
#   grouped      MASS's menarche as cbind(yes, no) ~ age (+ age2): anova(test = "Rao") of the pair
#                and of the larger model, and the influence measures per group (writes
#                menarche.csv).
suppressPackageStartupMessages({
  library(MASS)
  library(sandwich)
  library(jsonlite)
})

d <- birthwt[, c("low", "age", "lwt", "smoke", "ptl", "ht", "ui")]
d$race2 <- as.numeric(birthwt$race == 2)
d$race3 <- as.numeric(birthwt$race == 3)
d$race <- factor(birthwt$race)
n <- nrow(d)
i <- seq_len(n)
d$w <- 1 + (i %% 3)
d$g1 <- 1 + (i %% 12)
d$g2 <- 1 + ((i %/% 5) %% 9)
write.csv(d[, c("low", "age", "lwt", "race", "race2", "race3", "smoke", "ptl", "ht", "ui", "w",
                "g1", "g2")], "birthwt.csv", row.names = FALSE)

ctl <- glm.control(epsilon = 1e-14, maxit = 100)
full <- low ~ age + lwt + race2 + race3 + smoke + ptl + ht + ui
m <- glm(full, family = binomial, data = d, control = ctl)
mw <- glm(full, family = binomial, data = d, weights = w, control = ctl)
small <- glm(low ~ age + lwt + smoke, family = binomial, data = d, control = ctl)
null <- glm(low ~ 1, family = binomial, data = d, control = ctl)
mf <- glm(low ~ age + lwt + race + smoke + ptl + ht + ui, family = binomial, data = d,
          control = ctl)

out <- list(
  versions = list(R = R.version.string, sandwich = as.character(packageVersion("sandwich"))),
  coef = unname(coef(m)),
  vcovHC_HC2 = unname(vcovHC(m, type = "HC2")),
  vcovHC_HC3 = unname(vcovHC(m, type = "HC3")),
  vcovHC_HC2_weighted = unname(vcovHC(mw, type = "HC2")),
  vcovHC_HC3_weighted = unname(vcovHC(mw, type = "HC3")),
  vcovCL_2way = unname(vcovCL(m, cluster = ~ g1 + g2)),
  vcovCL_2way_HC1 = unname(vcovCL(m, cluster = ~ g1 + g2, type = "HC1")),
  vcovCL_2way_noadjust = unname(vcovCL(m, cluster = ~ g1 + g2, type = "HC0", cadjust = FALSE)),
  vcovCL_g1 = unname(vcovCL(m, cluster = ~ g1)),
  vcovCL_2way_weighted = unname(vcovCL(mw, cluster = ~ g1 + g2))
)

rao <- function(a, b) {
  t <- anova(a, b, test = "Rao")
  list(statistic = t$Rao[2], df = t$Df[2], pvalue = t[2, "Pr(>Chi)"])
}
out$rao_small_full <- rao(small, m)
out$rao_null_full <- rao(null, m)
out$rao_small_full_weighted <- rao(update(small, weights = w), mw)

seq_table <- function(t, stat) {
  list(terms = rownames(t), Df = t$Df, Deviance = t$Deviance, resid_df = t[["Resid. Df"]],
       resid_dev = t[["Resid. Dev"]], stat = if (is.null(stat)) NULL else t[[stat]],
       pvalue = t[["Pr(>Chi)"]])
}
out$anova_chisq <- seq_table(anova(mf, test = "Chisq"), NULL)
out$anova_rao <- seq_table(anova(mf, test = "Rao"), "Rao")

influence_of <- function(fit) {
  list(rstudent = unname(rstudent(fit)), dfbetas = unname(dfbetas(fit)),
       dffits = unname(dffits(fit)),
       response = unname(residuals(fit, type = "response")),
       working = unname(residuals(fit, type = "working")),
       hat = unname(hatvalues(fit)))
}
out$influence <- influence_of(m)
out$influence_weighted <- influence_of(mw)

# Stata's estat gof, group(g): quantile groups of the predicted probability (xtile).
hosmer_lemeshow <- function(p, y, g = 10) {
  cuts <- quantile(p, probs = seq_len(g - 1) / g, type = 2, names = FALSE)
  group <- vapply(p, function(v) sum(v > cuts) + 1L, integer(1))
  formed <- sort(unique(group))
  obs <- tapply(y, group, sum)
  expected <- tapply(p, group, sum)
  total <- tapply(rep(1, length(p)), group, sum)
  stat <- sum((obs - expected)^2 / (expected * (1 - expected / total)))
  list(statistic = stat, df = length(formed) - 2, pvalue = pchisq(stat, length(formed) - 2,
                                                                     lower.tail = FALSE),
       observed = unname(as.vector(obs)), expected = unname(as.vector(expected)),
       total = unname(as.vector(total)))
}
out$hosmer_lemeshow <- hosmer_lemeshow(fitted(m), d$low)
ties <- glm(low ~ smoke + ht + ui, family = binomial, data = d, control = ctl)
out$hosmer_lemeshow_ties <- hosmer_lemeshow(fitted(ties), d$low)
expanded <- rep(seq_len(n), d$w)
out$hosmer_lemeshow_weighted <- hosmer_lemeshow(fitted(mw)[expanded], d$low[expanded])

# An offset (o = 0.3 smoke - 0.01 age): the sequential anova with Rao's column and a score test.
d$o <- 0.3 * d$smoke - 0.01 * d$age
o_large <- glm(low ~ age + lwt + ht + offset(o), family = binomial, data = d, control = ctl)
o_small <- glm(low ~ age + offset(o), family = binomial, data = d, control = ctl)
out$offset_rao <- rao(o_small, o_large)
out$offset_anova_rao <- seq_table(anova(o_large, test = "Rao"), "Rao")

# Grouped binomial counts (R's cbind response): MASS's menarche (25 age groups), the score test of
# the quadratic term, the sequential anova with Rao's column, and the influence measures per group.
mn <- data.frame(age = menarche$Age, age2 = menarche$Age^2, yes = menarche$Menarche,
                 no = menarche$Total - menarche$Menarche)
write.csv(mn, "menarche.csv", row.names = FALSE)
g_small <- glm(cbind(yes, no) ~ age, family = binomial, data = mn, control = ctl)
g_large <- glm(cbind(yes, no) ~ age + age2, family = binomial, data = mn, control = ctl)
out$grouped_rao <- rao(g_small, g_large)
out$grouped_anova_rao <- seq_table(anova(g_large, test = "Rao"), "Rao")
out$grouped_influence <- influence_of(g_large)

writeLines(toJSON(out, digits = I(17), auto_unbox = TRUE, matrix = "rowmajor", pretty = TRUE),
           "glm_inference.json")
cat("HL (full model):", out$hosmer_lemeshow$statistic, out$hosmer_lemeshow$df,
    out$hosmer_lemeshow$pvalue, "\n")
