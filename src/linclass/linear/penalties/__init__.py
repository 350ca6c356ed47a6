"""Penalties on the coefficients: leaves that import nothing from objectives, solvers, inference
or estimators.  The elastic net with its L1 and L2 parts, per-feature penalty factors and bounds
(elastic_net; its compiled coordinate update: elastic_net_kernel), its grouped multinomial form
(grouped), the folded concave penalties (folded_concave and one module each), the form in which a
separable penalty reaches the compiled loops (kernel), and liblinear's penalised intercept
(intercept); table names them for ``LogisticRegression(penalty=...)``."""
