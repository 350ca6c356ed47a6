# Reference values for prediction with standard errors (tests/test_get_prediction.py).
# Run from this folder: Rscript predict_se.R   (writes predict_se.csv)
#
# MASS's birthwt, low ~ age + lwt + smoke, fitted by glm(family = binomial) (maximum likelihood)
# and by brglm2's glm(..., method = "brglmFit", type = "AS_mean") (Firth's estimator).  For every
# row of the data, predict(fit, newdata, type = "link", se.fit = TRUE) gives the linear predictor
# x'b ($fit) and its standard error sqrt(x' V x) ($se.fit), V = vcov(fit); type = "response" gives
# the probability and its delta-method standard error p(1 - p) se.fit.
suppressPackageStartupMessages({library(MASS); library(brglm2)})

d <- birthwt[, c("low", "age", "lwt", "smoke")]
ml <- glm(low ~ age + lwt + smoke, family = binomial, data = d,
          control = glm.control(epsilon = 1e-14, maxit = 100))
firth <- glm(low ~ age + lwt + smoke, family = binomial, data = d, method = "brglmFit",
             type = "AS_mean", epsilon = 1e-12, maxit = 200)
link <- predict(ml, newdata = d, type = "link", se.fit = TRUE)
resp <- predict(ml, newdata = d, type = "response", se.fit = TRUE)
flink <- predict(firth, newdata = d, type = "link", se.fit = TRUE)
out <- data.frame(d, fit = link$fit, se_fit = link$se.fit, prob = resp$fit, se_prob = resp$se.fit,
                  firth_fit = flink$fit, firth_se_fit = flink$se.fit)
write.csv(out, "predict_se.csv", row.names = FALSE)
