# MASS's LDA and QDA posteriors on iris (R's datasets), the reference for partial_fit on chunks
# (tests/test_stream_partial_fit.py).  Run: Rscript iris_posteriors.R  (writes the CSVs here)
library(MASS)
write.csv(iris, "iris.csv", row.names = FALSE)
q <- qda(Species ~ ., data = iris)  # method = "moment": unbiased class covariances
l <- lda(Species ~ ., data = iris)  # pooled covariance divided by n - K
write.csv(predict(q, iris)$posterior, "iris_qda_posterior.csv", row.names = FALSE)
write.csv(predict(l, iris)$posterior, "iris_lda_posterior.csv", row.names = FALSE)
sink("versions.txt"); cat(R.version.string, "\n"); cat("MASS", as.character(packageVersion("MASS")), "\n"); sink()
