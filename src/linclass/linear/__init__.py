"""Discriminative linear models: the logistic / softmax losses in score space (losses), the
penalised objective over the coefficients (objective, objective_layout, class_weights) and its
Hessian's data term (curvature), where a fit starts (start: the shared-covariance Gaussian model),
its solvers (solvers/), the L1 / elastic-net penalties (penalties) and the penalised objective they
make (penalised, on a design of dense or sparse columns: design; paths of penalties: path; the
honest summary of a selection: penalised_summary; compiled coordinate loops: compiled/),
liblinear's penalised intercept (intercept_penalty), Firth's penalised
likelihood (firth, firth_inference), separation checks (separation), statistical inference
(inference) and its table (summary), and the perceptron's learning rule (perceptron_rule, its epochs
and stopping rules in perceptron_training, basis_functions)."""
