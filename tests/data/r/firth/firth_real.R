# Firth's logistic regression on two real data sets, as brglm2 fits them (tests/test_firth_real.py).
# Run from this folder: Rscript firth_real.R
#   writes sonar.csv, fgl.csv             the data (mlbench::Sonar; MASS::fgl)
#          sonar_coef.csv, fgl_coef.csv   estimates and standard errors
#          sonar_proba.csv, fgl_proba.csv fitted probabilities of every row
#          firth_real_summary.csv         penalised log-likelihoods, iterations, convergence
#
# sonar: Class (M, R) ~ all 60 features, 208 rows, completely separated: the maximum-likelihood
#   estimate does not exist, Firth's does.  glm(..., method = "brglmFit", type = "AS_mean")
#   (Kosmidis & Firth 2009; for the logit link it maximises Firth's (1993) penalised likelihood
#   l(b) + 1/2 log|X'WX|), probability of the second level, R.
# fgl: type (six levels, baseline WinF) ~ all nine features, 214 rows.  brmultinom(type =
#   "AS_mean") (Kosmidis & Firth 2011) and brmultinom(type = "MPL_Jeffreys"): for the canonical
#   multinomial logit both solve the same modified score, the gradient of l(B) + 1/2 log|I(B)|.
#   The penalised log-likelihood is computed here from the estimate, with I(B) the Fisher
#   information of the baseline-category parameters.
# sonar with epsilon = 1e-12, maxit = 1000.  On fgl brmultinom does not meet epsilon = 1e-12 (it
#   reports converged = FALSE, with fitted rates numerically 0: some probabilities are below 1e-27),
#   but its iterates stop changing by iteration 60 (the penalised log-likelihood to 1e-11); the
#   estimate written is its 100th iterate.  Printed with 15 significant digits.
suppressPackageStartupMessages({library(brglm2); library(mlbench); library(MASS)})

data(Sonar, package = "mlbench")
write.csv(Sonar, "sonar.csv", row.names = FALSE, quote = FALSE)
write.csv(fgl, "fgl.csv", row.names = FALSE, quote = FALSE)

fmt <- function(d) format(d, digits = 15)
summary_rows <- NULL

# ---- sonar: two classes
X <- model.matrix(Class ~ ., Sonar)
y <- as.integer(Sonar$Class == "R")
fit <- glm(Class ~ ., family = binomial("logit"), data = Sonar, method = "brglmFit",
           type = "AS_mean", epsilon = 1e-12, maxit = 1000)
b <- coef(fit)
se <- sqrt(diag(vcov(fit)))
eta <- drop(X %*% b)
W <- exp(plogis(eta, log.p = TRUE) + plogis(-eta, log.p = TRUE))
ll <- sum(ifelse(y == 1, plogis(eta, log.p = TRUE), plogis(-eta, log.p = TRUE)))
pll <- ll + 0.5 * as.numeric(determinant(crossprod(X, X * W), logarithm = TRUE)$modulus)
write.csv(data.frame(term = names(b), coef = fmt(b), se = fmt(se)), "sonar_coef.csv",
          row.names = FALSE, quote = FALSE)
write.csv(data.frame(row = seq_along(eta) - 1, p = fmt(plogis(eta))), "sonar_proba.csv",
          row.names = FALSE, quote = FALSE)
summary_rows <- rbind(summary_rows, data.frame(case = "sonar", type = "AS_mean",
  loglik = fmt(ll), penalised = fmt(pll), iter = fit$iter, converged = fit$converged))

# ---- fgl: six classes
Xf <- model.matrix(type ~ ., fgl)
K <- nlevels(fgl$type)
penalised <- function(B) {
  # l(B) + 1/2 log|I(B)|, B: (K-1) x p, each class against the first
  eta <- cbind(0, Xf %*% t(B))
  P <- exp(eta - apply(eta, 1, max))
  P <- P / rowSums(P)
  ll <- sum(log(P[cbind(seq_len(nrow(Xf)), as.integer(fgl$type))]))
  p <- ncol(Xf)
  I <- matrix(0, (K - 1) * p, (K - 1) * p)
  for (i in seq_len(nrow(Xf))) {
    pi <- P[i, -1]
    I <- I + kronecker(diag(pi, K - 1) - tcrossprod(pi), tcrossprod(Xf[i, ]))
  }
  c(ll = ll, penalised = ll + 0.5 * as.numeric(determinant(I, logarithm = TRUE)$modulus),
    list(P = P))
}
coefs <- NULL
probas <- NULL
for (type in c("AS_mean", "MPL_Jeffreys")) {
  fit <- suppressWarnings(brmultinom(type ~ ., data = fgl, type = type,
                                     control = list(epsilon = 1e-12, maxit = 100)))
  B <- coef(fit)
  SE <- summary(fit)$standard.errors
  v <- penalised(B)
  coefs <- rbind(coefs, data.frame(type = type, class = rep(rownames(B), times = ncol(B)),
                                   term = rep(colnames(B), each = nrow(B)),
                                   coef = fmt(as.vector(B)), se = fmt(as.vector(SE))))
  P <- v$P
  colnames(P) <- levels(fgl$type)
  probas <- rbind(probas, data.frame(type = type, row = seq_len(nrow(P)) - 1, fmt(P)))
  summary_rows <- rbind(summary_rows, data.frame(case = "fgl", type = type,
    loglik = fmt(v$ll), penalised = fmt(v$penalised), iter = fit$iter,
    converged = isTRUE(fit$converged)))
}
write.csv(coefs, "fgl_coef.csv", row.names = FALSE, quote = FALSE)
write.csv(probas, "fgl_proba.csv", row.names = FALSE, quote = FALSE)
write.csv(summary_rows, "firth_real_summary.csv", row.names = FALSE, quote = FALSE)
cat("brglm2", as.character(packageVersion("brglm2")), "mlbench",
    as.character(packageVersion("mlbench")), "MASS", as.character(packageVersion("MASS")),
    R.version.string, "\n")
