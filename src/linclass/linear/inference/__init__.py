"""Statistical inference after a logistic fit: the Wald quantities (wald: covariance, standard
errors, likelihood-ratio test against the null model), Firth's profile penalised-likelihood
intervals and tests (firth, firth_profile), and the tables a user reads (summary; the honest summary
of a penalised selection: penalised_summary); from the training rows at summary time, the robust
(sandwich) covariances (sandwich), the marginal effects with their delta-method standard errors
(margins), the profile-likelihood intervals and tests of unpenalised fits (profile) and the
regression diagnostics of R's influence measures (diagnostics); Wald tests of linear hypotheses and
likelihood-ratio tests of nested models (hypotheses); predictions with standard errors
(prediction)."""
