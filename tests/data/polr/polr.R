# Reference fits of the proportional odds model (MASS::polr, Venables & Ripley 2002, sec. 7.3) for
# tests/test_ordinal.py: coefficients, thresholds (zeta), their covariance (vcov), the
# log-likelihood, deviance, AIC and the fitted probabilities, with the logistic and probit links.
# Data: MASS's housing (Sat ~ Infl + Type + Cont, weights = Freq; 72 rows, 1681 households) and a
# simulated set of 300 rows, 3 features and 4 ordered classes (written to simulated.csv), fitted
# with and without integer frequency weights.
# polr maximises by optim's BFGS and takes its covariance from optim's finite-difference Hessian;
# both are tightened here (reltol 1e-15, step 1e-5, and a second fit started at the first one's
# optimum) so that the reference is accurate well beyond the tests' 1e-6.
# Run from this folder: Rscript polr.R  (writes housing.csv, simulated.csv and polr.json)
suppressPackageStartupMessages(library(MASS))

json <- function(x) {
  if (is.list(x)) {
    return(paste0("{", paste(sprintf("\"%s\": %s", names(x), vapply(x, json, "")),
                             collapse = ", "), "}"))
  }
  if (is.character(x)) return(paste0("[", paste(sprintf("\"%s\"", x), collapse = ", "), "]"))
  num <- function(v) paste0("[", paste(sprintf("%.17g", v), collapse = ", "), "]")
  if (is.matrix(x)) return(paste0("[", paste(apply(x, 1, num), collapse = ", "), "]"))
  num(as.vector(x))
}

tight_polr <- function(formula, data, weights, method) {
  p <- ncol(model.matrix(formula, data)) - 1 + nlevels(model.response(model.frame(formula, data))) - 1
  control <- list(reltol = 1e-15, maxit = 10000, ndeps = rep(1e-5, p))
  args <- list(formula = formula, data = data, method = method, Hess = TRUE, control = control)
  if (!is.null(weights)) args$weights <- weights
  m <- do.call(polr, args)
  args$start <- c(coef(m), m$zeta)
  do.call(polr, args)
}

record <- function(m, X) {
  list(link = m$method, columns = names(coef(m)), coef = unname(coef(m)), zeta = unname(m$zeta),
       zeta_names = names(m$zeta), vcov = unname(vcov(m)),
       se = unname(sqrt(diag(vcov(m)))), loglik = as.numeric(logLik(m)), deviance = m$deviance,
       aic = AIC(m), nobs = m$nobs, edf = m$edf, convergence = m$convergence,
       fitted = unname(fitted(m)), X = unname(X))
}

housing$Freq <- as.numeric(housing$Freq)
write.csv(housing, "housing.csv", row.names = FALSE, quote = FALSE)

set.seed(20261207)
n <- 300
sim <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = runif(n, -2, 2))
latent <- 0.8 * sim$x1 - 0.5 * sim$x2 + 0.3 * sim$x3 + rlogis(n)
sim$y <- cut(latent, c(-Inf, -1, 0, 1.2, Inf), labels = FALSE) - 1L
sim$w <- sample(1:3, n, replace = TRUE)
write.csv(sim, "simulated.csv", row.names = FALSE, quote = FALSE)
sim$yf <- factor(sim$y, levels = 0:3, ordered = TRUE)

hform <- Sat ~ Infl + Type + Cont
hX <- model.matrix(hform, housing)[, -1]
sform <- yf ~ x1 + x2 + x3
sX <- as.matrix(sim[, c("x1", "x2", "x3")])
out <- list()
for (method in c("logistic", "probit")) {
  key <- if (method == "logistic") "logit" else "probit"
  out[[paste0("housing_", key)]] <- record(tight_polr(hform, housing, housing$Freq, method), hX)
  out[[paste0("simulated_", key)]] <- record(tight_polr(sform, sim, NULL, method), sX)
  out[[paste0("simulated_weighted_", key)]] <- record(tight_polr(sform, sim, sim$w, method), sX)
}
out$versions <- c(paste("MASS", as.character(packageVersion("MASS"))), R.version.string)
writeLines(json(out), "polr.json")
cat("polr", as.character(packageVersion("MASS")), R.version.string, "\n")
