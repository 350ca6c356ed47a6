# Profile penalised-likelihood intervals of Firth's logistic regression under complete separation,
# where the profile has several local maxima (tests/test_firth.py).
# Run from this folder: Rscript firth_separated.R   (reads separated.csv, writes firth_separated.csv)
#
# separated.csv: two data sets of 30 rows, x ~ N(0, I_3) and y = 1[1.5 x1 - x2 + 0.5 x3 > 0]
# (numpy's default_rng(1) and default_rng(2)).  With one coefficient held far out, l*(b) =
# l(b) + 1/2 log|X'WX| has several local maxima in the others, and which is highest changes along
# the profile.  For every parameter this script writes
#   local_lower, local_upper, local_lr:  the profile from one Newton fit per point, started at the
#                                        estimate (as firth.R computes it: a local search);
#   lower, upper, lr:                    the profile as the best of that fit and of BFGS (optim)
#                                        from 60 random starts, each polished by the Newton fit
#                                        (a global search), the ends found by scanning outwards in
#                                        doubling steps of the standard error, then uniroot.
# Estimates and standard errors from brglm2 (type = "AS_mean").
suppressPackageStartupMessages(library(brglm2))

pll <- function(b, X, y) {
  eta <- drop(X %*% b)
  p <- plogis(eta)
  W <- exp(plogis(eta, log.p = TRUE) + plogis(-eta, log.p = TRUE))
  ll <- sum(ifelse(y == 1, plogis(eta, log.p = TRUE), plogis(-eta, log.p = TRUE)))
  d <- determinant(crossprod(X, X * W), logarithm = TRUE)
  if (d$sign <= 0) return(-Inf)
  ll + 0.5 * as.numeric(d$modulus)
}

score <- function(b, X, y) {
  eta <- drop(X %*% b)
  p <- plogis(eta)
  W <- p * (1 - p)
  I <- crossprod(X, X * W)
  h <- W * rowSums((X %*% solve(I)) * X)
  drop(crossprod(X, (y - p) + h * (0.5 - p)))
}

newton <- function(X, y, fixed, start) {
  b <- start
  free <- !fixed
  for (it in 1:2000) {
    p <- plogis(drop(X %*% b))
    W <- p * (1 - p)
    I <- crossprod(X, X * W)
    U <- score(b, X, y)
    if (max(abs(U[free])) < 1e-10) break
    step <- solve(I[free, free, drop = FALSE], U[free])
    t <- 1
    base <- pll(b, X, y)
    repeat {
      cand <- b
      cand[free] <- b[free] + t * step
      v <- pll(cand, X, y)
      if ((is.finite(v) && v >= base - 1e-12) || t < 1e-10) break
      t <- t / 2
    }
    b <- cand
  }
  b
}

best_at <- function(X, y, bhat, j, v, starts) {
  fixed <- seq_along(bhat) == j
  s <- bhat; s[j] <- v
  best <- pll(newton(X, y, fixed, s), X, y)
  for (k in seq_len(nrow(starts))) {
    s <- starts[k, ]; s[j] <- v
    f <- function(u) { b <- s; b[!fixed] <- u; val <- pll(b, X, y); if (is.finite(val)) -val else 1e10 }
    g <- function(u) { b <- s; b[!fixed] <- u; -score(b, X, y)[!fixed] }
    val <- tryCatch({  # a start where X'WX is numerically singular is skipped
      o <- optim(s[!fixed], f, g, method = "BFGS", control = list(maxit = 1000, reltol = 1e-14))
      s[!fixed] <- o$par
      pll(newton(X, y, fixed, s), X, y)
    }, error = function(e) -Inf)
    if (is.finite(val) && val > best) best <- val
  }
  best
}

profile_ends <- function(X, y, bhat, se, j, q, n_starts) {
  best <- pll(bhat, X, y)
  scale <- 3 * (abs(bhat) + 1)
  dev <- function(v) {
    grow <- max(1, abs(v) / (abs(bhat[j]) + 1))
    starts <- matrix(rnorm(n_starts * length(bhat)), n_starts) * rep(scale * grow, each = n_starts)
    2 * (best - best_at(X, y, bhat, j, v, starts))
  }
  ends <- c()
  for (side in c(-1, 1)) {
    inside <- bhat[j]
    k <- 0
    repeat {
      out <- bhat[j] + side * se[j] * 2^k
      if (dev(out) >= q) break
      inside <- out
      k <- k + 1
    }
    ends <- c(ends, uniroot(function(v) dev(v) - q, sort(c(inside, out)), tol = 1e-9)$root)
  }
  c(ends, dev(0))
}

run <- function(name, X, y) {
  df <- data.frame(y = y, X[, -1, drop = FALSE])
  fit <- glm(y ~ ., family = binomial("logit"), data = df, method = "brglmFit",
             type = "AS_mean", epsilon = 1e-12, maxit = 500)
  b <- coef(fit)
  se <- sqrt(diag(vcov(fit)))
  q <- qchisq(0.95, 1)
  set.seed(1)
  local <- t(sapply(seq_along(b), function(j) profile_ends(X, y, b, se, j, q, 0)))
  global <- t(sapply(seq_along(b), function(j) profile_ends(X, y, b, se, j, q, 60)))
  data.frame(case = name, param = names(b), coef = b, se = se,
             local_lower = local[, 1], local_upper = local[, 2], local_lr = local[, 3],
             lower = global[, 1], upper = global[, 2], lr = global[, 3])
}

data <- read.csv("separated.csv")
res <- NULL
for (name in unique(data$case)) {
  d <- data[data$case == name, ]
  res <- rbind(res, run(name, cbind(1, as.matrix(d[, c("x1", "x2", "x3")])), d$y))
}
write.csv(format(res, digits = 15), "firth_separated.csv", row.names = FALSE, quote = FALSE)
cat("brglm2", as.character(packageVersion("brglm2")), R.version.string, "\n")
