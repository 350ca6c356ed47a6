"""Discriminative linear models, one sub-package per job, each importing only those listed before
it:

``compiled``    numba loops over samples and columns (the only sequential code of the fits)
``logistic``    the logistic / softmax objective over a design: losses, the objective on dense,
                sparse and chunked X (objective, design, chunked), its layout and curvature, class
                weights, the Gaussian starting point, separation checks
``solvers``     Newton, the bounded-Hessian iteration, L-BFGS, SGD, proximal Newton with coordinate
                descent
``inference``   Wald standard errors, tests and intervals, and the summary tables
``penalties``   the penalty objects and their table: the elastic net (L1 / L2, per-feature
                factors and bounds, grouped across classes) and the penalised objective it makes,
                Firth's log-determinant (two and K classes) with its profile inference, liblinear's
                penalised intercept
``fitting``     the choice of solver, the fit itself (``fit_logistic``), its inference records,
                penalty paths
``perceptron``  the perceptron's learning rule, its epochs and its basis functions (apart)
"""
