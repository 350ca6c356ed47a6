"""Discriminative linear models, one sub-package per job, in the order a fit uses them:

``compiled``    numba loops over samples and columns (the only sequential code of the fits)
``logistic``    the logistic / softmax objective over a design: losses, the objective on dense,
                sparse and chunked X (objective, design, chunked), its layout and curvature, class
                weights, the Gaussian starting point, separation checks
``penalties``   what is added to the objective: the elastic net (L1 / L2), Firth's log-determinant,
                liblinear's penalised intercept, and the penalised objective they make
``solvers``     Newton, the bounded-Hessian iteration, L-BFGS, SGD, proximal Newton with coordinate
                descent
``inference``   standard errors, tests and intervals, and the summary tables
``fitting``     the choice of solver and the fit itself (``fit_logistic``), penalty paths
``perceptron``  the perceptron's learning rule, its epochs and its basis functions
"""
