"""The logistic / softmax objective over a design: the datafits Binomial and Multinomial (losses;
their compiled form is linclass.linear.compiled.sample_terms), the objective over the coefficients
on dense or sparse X (objective, with its parameter layout: layout; its Hessian's data term:
curvature), on X in column storage (design) and on X in chunks (chunked), class weights
(class_weights), where a fit starts (start: the shared-covariance Gaussian model) and whether the
maximum-likelihood estimate exists (separation); the penalised objectives proximal Newton minimises,
in memory (penalised, with liblinear's augmented intercept: intercept_proximal), over chunks
(penalised_chunked) and over cross-validation folds (penalised_folds)."""
