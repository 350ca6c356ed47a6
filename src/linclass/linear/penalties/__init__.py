"""What a penalised fit adds to the log-likelihood: the elastic net with its L1 and L2 parts
(elastic_net) and the penalised objective it makes over a design (penalised), Firth's
log-determinant of the information (firth, firth_likelihood), and liblinear's penalised intercept
(intercept)."""
