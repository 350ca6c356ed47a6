# Reference values for Firth's logistic regression (tests/test_firth.py).
# Run from this folder: Rscript firth.R   (writes firth_reference.csv)
#
# Estimates and standard errors: brglm2's glm(..., method = "brglmFit", type = "AS_mean"), which is
# Firth's estimator for the logistic model; its vcov is the inverse Fisher information at the
# estimate.  Profile penalised-likelihood intervals, penalised likelihood-ratio p-values and the
# global LR test (as logistf reports them; logistf is not packaged by Debian) are computed below
# by constrained Newton fits of l(b) + 1/2 log|X'WX| (the penalty on the full design), then
# uniroot.
suppressPackageStartupMessages(library(brglm2))

pll <- function(b, X, y, w) {
  eta <- drop(X %*% b)
  p <- plogis(eta)
  ll <- sum(w * ifelse(y == 1, plogis(eta, log.p = TRUE), plogis(-eta, log.p = TRUE)))
  I <- crossprod(X, X * (w * p * (1 - p)))
  ll + 0.5 * as.numeric(determinant(I, logarithm = TRUE)$modulus)
}

constrained <- function(X, y, w, fixed, start) {
  b <- start
  free <- !fixed
  for (it in 1:1000) {
    p <- plogis(drop(X %*% b))
    W <- w * p * (1 - p)
    I <- crossprod(X, X * W)
    Iinv <- solve(I)
    h <- W * rowSums((X %*% Iinv) * X)
    U <- crossprod(X, w * (y - p) + h * (0.5 - p))
    if (max(abs(U[free])) < 1e-12) break
    step <- solve(I[free, free, drop = FALSE], U[free])
    t <- 1
    base <- pll(b, X, y, w)
    repeat {
      cand <- b
      cand[free] <- b[free] + t * step
      v <- pll(cand, X, y, w)
      if ((is.finite(v) && v >= base - 1e-12) || t < 1e-10) break
      t <- t / 2
    }
    b <- cand
  }
  list(b = b, value = pll(b, X, y, w))
}

profile_ci <- function(X, y, w, bhat, j, q) {
  best <- pll(bhat, X, y, w)
  fixed <- seq_along(bhat) == j
  dev <- function(v) {
    s <- bhat; s[j] <- v
    2 * (best - constrained(X, y, w, fixed, s)$value)
  }
  ends <- c()
  for (side in c(-1, 1)) {
    step <- side * (1 + abs(bhat[j]))
    out <- bhat[j] + step
    while (dev(out) < q) out <- bhat[j] + 2 * (out - bhat[j])
    ends <- c(ends, uniroot(function(v) dev(v) - q, sort(c(bhat[j], out)), tol = 1e-12)$root)
  }
  c(ends, dev(0))
}

run <- function(name, X, y, w) {
  df <- data.frame(y = y, X[, -1, drop = FALSE])
  fit <- glm(y ~ ., family = binomial("logit"), data = df, weights = w, method = "brglmFit",
             type = "AS_mean", epsilon = 1e-12, maxit = 200)
  b <- coef(fit)
  se <- sqrt(diag(vcov(fit)))
  q <- qchisq(0.95, 1)
  prof <- t(sapply(seq_along(b), function(j) profile_ci(X, y, w, b, j, q)))
  slopes <- seq_along(b) > 1
  null <- constrained(X, y, w, slopes, ifelse(slopes, 0, b))$value
  data.frame(case = name, param = names(b), coef = b, se = se, lower = prof[, 1],
             upper = prof[, 2], lr = prof[, 3], p = pchisq(prof[, 3], 1, lower.tail = FALSE),
             penalised = pll(b, X, y, w), null_penalised = null)
}

data("endometrial", package = "brglm2")
X <- cbind(1, as.matrix(endometrial[, c("NV", "PI", "EH")]))
res <- run("endometrial", X, endometrial$HG, rep(1, nrow(X)))

# complete separation: x1 > 0 exactly for class 1 (one covariate: with more, the profile of a
# separating coefficient far out can have several local maxima, which no local fit resolves)
x1 <- c(-2.1, -1.3, -0.8, -0.4, -0.2, 0.3, 0.5, 0.9, 1.4, 2.2)
yc <- as.numeric(x1 > 0)
res <- rbind(res, run("complete", cbind(1, x1), yc, rep(1, 10)))

# frequency weights (endometrial rows weighted 1..3)
wts <- rep(c(1, 2, 3), length.out = nrow(X))
res <- rbind(res, run("endometrial_weighted", X, endometrial$HG, wts))

write.csv(format(res, digits = 17), "firth_reference.csv", row.names = FALSE, quote = FALSE)
cat("brglm2", as.character(packageVersion("brglm2")), R.version.string, "\n")
