# Average marginal effects per variable, as Stata's `margins, dydx()` defines them, for
# tests/test_margins_variables.py (the suite needs no R).  Run from this folder: Rscript margins.R
#   (writes birthwt.csv, the rows, and margins.csv: case, at, setting, effect, estimate, std_err)
#
# MASS's birthwt (Hosmer and Lemeshow), 189 births, race a factor labelled white / black / other
# (reference white).  Each case is glm(family = binomial) with epsilon 1e-14.
#
# The effects are those of the average predicted probability (Stata's margins, R's
# marginaleffects::avg_slopes / avg_comparisons):
#   a number's effect: the derivative of the average probability when the variable moves, through
#     every column built from it (I(age^2), age:smoke, log(lwt), age:race): numDeriv's Richardson
#     derivative of mean(predict(fit, newdata with the variable shifted by h, type = "response"));
#   a 0/1 number with dummy = TRUE (Stata's i.smoke): the average probability with every row at 1
#     minus that with every row at 0, every column built from it set accordingly;
#   a factor's level: the average probability with every row at the level minus with every row at
#     the reference level (white).
# at = "mean" (Stata's atmeans): one point, the numbers at their means and a factor at the
#   proportions of its levels (the model matrix of one row per level, weighted by the
#   proportions: so a factor's columns and its interactions are the means of its indicators
#   times the other variables' means); the effects are those of the probability at that point.
# setting: Stata's at(): the variable set to the value in every row before the effects are taken
#   (a factor to a level); the effect of a variable set so is still its change from 0 to 1 or
#   from the reference level (the value it was set to does not matter for its own effect).
# Standard errors by the delta method: numDeriv's jacobian of the effects with respect to the
#   coefficients (the derivatives of the model matrix, by Richardson's extrapolation of central
#   differences, held fixed) and the inverse information at the converged estimate.
options(digits = 17)
suppressPackageStartupMessages({library(MASS); library(numDeriv); library(splines)})

data(birthwt)
d <- birthwt[, c("low", "age", "lwt", "race", "smoke")]
d$race <- factor(d$race, levels = 1:3, labels = c("white", "black", "other"))
write.csv(d, "birthwt.csv", row.names = FALSE)

cases <- list(
  # low ~ age + I(age**2) + lwt + smoke + age:smoke   (the issue's formula)
  powers = low ~ age + I(age^2) + lwt + smoke + age:smoke,
  # low ~ age + np.log(lwt) + C(race, Treatment('white')) * smoke + age:C(race, Treatment('white'))
  factor = low ~ age + log(lwt) + race * smoke + age:race,
  # low ~ bs(age, df=4) + age:C(race, Treatment('white')) + lwt   (a spline; one of the three
  # columns of age:race lies in the span of the spline's and is aliased, which linclass drops; R's
  # glm at epsilon 1e-14 does not detect it, so R fits the same model without it)
  spline = low ~ bs(age, df = 4) + I(age * (race == "black")) + I(age * (race == "other")) + lwt
)
# the bounds of a variable's spline (its boundary knots): derivatives one-sided within 2h of them
bounds <- list(spline = list(age = range(d$age)))
# (case, at, setting as a list) -> which effects: slopes of numbers, changes of 0/1 numbers, factors
settings <- list(
  list(case = "powers", at = "overall", set = list()),
  list(case = "powers", at = "mean", set = list()),
  list(case = "powers", at = "overall", set = list(age = 30)),
  list(case = "powers", at = "overall", set = list(smoke = 1)),
  list(case = "powers", at = "mean", set = list(age = 30, smoke = 0)),
  list(case = "factor", at = "overall", set = list()),
  list(case = "factor", at = "mean", set = list()),
  list(case = "factor", at = "overall", set = list(race = "black")),
  list(case = "factor", at = "overall", set = list(smoke = 1, age = 25)),
  list(case = "factor", at = "mean", set = list(race = "other", lwt = 120)),
  list(case = "spline", at = "overall", set = list()),
  list(case = "spline", at = "mean", set = list())
)

mm <- function(fit, frame) model.matrix(delete.response(terms(fit)), frame, xlev = fit$xlevels)

# the evaluation points: a frame and its aggregation (points x rows) and point weights
points <- function(frame, at) {
  if (at == "overall") return(list(frame = frame, agg = diag(nrow(frame)), v = rep(1 / nrow(frame), nrow(frame))))
  one <- frame[1, , drop = FALSE]
  for (name in names(frame)) if (is.numeric(frame[[name]])) one[[name]] <- mean(frame[[name]])
  p <- prop.table(table(frame$race))
  p <- p[p > 0]
  mix <- one[rep(1, length(p)), , drop = FALSE]
  mix$race <- factor(names(p), levels = levels(frame$race))
  list(frame = mix, agg = matrix(as.numeric(p), nrow = 1), v = 1)
}

# Richardson's extrapolation of central differences of the model matrix in `name` (steps h and
# h/2, h = 1e-4 max(|x|, mean |x|, or 1 where that is 0)); within h of a bound, of the one-sided second-order
# differences (-3 f(x) + 4 f(x + s h) - f(x + 2 s h)) / (2 s h), s = +1 or -1
dmm <- function(fit, frame, name, bound = c(-Inf, Inf)) {
  x <- frame[[name]]
  scale <- mean(abs(x))
  h <- 1e-4 * pmax(abs(x), if (scale > 0) scale else 1)
  at <- function(s) { f <- frame; f[[name]] <- x + s * h; mm(fit, f) }
  D1 <- (at(1) - at(-1)) / (2 * h)
  D2 <- (at(0.5) - at(-0.5)) / h
  D <- (4 * D2 - D1) / 3
  side <- ifelse(x - h < bound[1], 1, ifelse(x + h > bound[2], -1, 0))
  if (any(side != 0)) {
    s <- side; s[s == 0] <- 1  # (rows inside: any side, not used)
    f0 <- mm(fit, frame)
    E1 <- s * (-3 * f0 + 4 * at(s) - at(2 * s)) / (2 * h)
    E2 <- s * (-3 * f0 + 4 * at(s / 2) - at(s)) / h
    D[side != 0, ] <- ((4 * E2 - E1) / 3)[side != 0, ]
  }
  D
}

with_value <- function(frame, name, value) {
  if (is.factor(frame[[name]])) frame[[name]] <- factor(rep(value, nrow(frame)), levels = levels(frame[[name]]))
  else frame[[name]] <- rep(value, nrow(frame))
  frame
}

rows <- list()
for (s in settings) {
  fit <- glm(cases[[s$case]], family = binomial, data = d,
             control = glm.control(epsilon = 1e-14, maxit = 100))
  keep <- !is.na(coef(fit))  # (aliased columns: coefficient NA, taken as 0)
  full <- function(b) { out <- rep(0, length(keep)); out[keep] <- b; out }
  X <- model.matrix(fit)[, keep]
  p <- fitted(fit)
  V <- solve(crossprod(X * sqrt(p * (1 - p))))  # the information at the estimate
  frame <- d
  for (name in names(s$set)) frame <- with_value(frame, name, s$set[[name]])
  pts <- points(frame, s$at)
  numbers <- intersect(c("age", "lwt", "smoke"), all.vars(cases[[s$case]]))
  effects <- list()
  for (name in numbers) {  # slopes
    bound <- if (is.null(bounds[[s$case]][[name]])) c(-Inf, Inf) else bounds[[s$case]][[name]]
    D <- pts$agg %*% dmm(fit, pts$frame, name, bound)
    X0 <- pts$agg %*% mm(fit, pts$frame)
    effects[[name]] <- local({X0 <- X0; D <- D; v <- pts$v
      function(b) sum(v * dlogis(X0 %*% full(b)) * (D %*% full(b)))})
    if (s$at == "overall") {  # the same, by predict() on shifted rows
      avg <- function(h) { f <- pts$frame; f[[name]] <- f[[name]] + h; mean(predict(fit, f, type = "response")) }
      if (is.null(bounds[[s$case]][[name]]))  # (predict() extrapolates a spline linearly)
        stopifnot(abs(grad(avg, 0) - effects[[name]](coef(fit)[keep])) < 1e-9)
    }
  }
  changes <- if ("smoke" %in% all.vars(cases[[s$case]])) list(smoke = c(0, 1)) else list()
  if ("race" %in% all.vars(cases[[s$case]])) {
    changes[["race[black]"]] <- c("white", "black")
    changes[["race[other]"]] <- c("white", "other")
  }
  for (label in names(changes)) {
    name <- sub("\\[.*", "", label)
    lo <- pts$agg %*% mm(fit, with_value(pts$frame, name, changes[[label]][1]))
    hi <- pts$agg %*% mm(fit, with_value(pts$frame, name, changes[[label]][2]))
    key <- if (label == "smoke") "smoke (0 to 1)" else label
    effects[[key]] <- local({lo <- lo; hi <- hi; v <- pts$v
      function(b) sum(v * (plogis(hi %*% full(b)) - plogis(lo %*% full(b))))})
    if (s$at == "overall") {
      f0 <- with_value(pts$frame, name, changes[[label]][1]); f1 <- with_value(pts$frame, name, changes[[label]][2])
      stopifnot(abs(mean(suppressWarnings(predict(fit, f1, type = "response") -
                                          predict(fit, f0, type = "response"))) -
                    effects[[key]](coef(fit)[keep])) < 1e-14)
    }
  }
  all_effects <- function(b) sapply(effects, function(f) f(b))
  G <- jacobian(all_effects, coef(fit)[keep])
  se <- sqrt(diag(G %*% V %*% t(G)))
  setting <- if (length(s$set)) paste(names(s$set), unlist(s$set), sep = "=", collapse = ";") else ""
  rows[[length(rows) + 1]] <- data.frame(case = s$case, at = s$at, setting = setting,
                                         effect = names(effects),
                                         estimate = unname(all_effects(coef(fit)[keep])), std_err = se)
}
out <- do.call(rbind, rows)
print(out)
write.csv(out, "margins.csv", row.names = FALSE)
