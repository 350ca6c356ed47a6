# mlbench's Sonar data (208 rows, 60 features V1..V60, Class M / R) for the command-line and
# perceptron tests (tests/test_cli_readme_claims.py).  Run from this folder: Rscript sonar.R
data(Sonar, package = "mlbench")
write.csv(Sonar, "sonar.csv", row.names = FALSE, quote = FALSE)
