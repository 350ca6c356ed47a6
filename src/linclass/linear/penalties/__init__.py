"""What a penalised fit adds to the log-likelihood: the elastic net with its L1 and L2 parts,
per-feature penalty factors and bounds on the coefficients (elastic_net), its grouped multinomial
form (grouped) and the penalised objective they make over a design (penalised), Firth's
log-determinant of the information for two classes (firth, firth_likelihood, firth_inference,
firth_profile) and K classes (firth_multinomial), on chunked data too (firth_chunked), and
liblinear's penalised intercept (intercept); table names them for
``LogisticRegression(penalty=...)``."""
