"""The proportional odds model of ordered classes (McCullagh, 1980; MASS's ``polr``):
:math:`P(y \\le k \\mid x) = F(\\zeta_k - x^T\\beta)`, :math:`k = 1, \\dots, K-1`.

``links``       the cumulative distributions :math:`F` (logistic, normal) in log space
``likelihood``  the interval probabilities, the log-likelihood, its gradient and Hessian
``newton``      Newton's method on :math:`(\\beta, \\zeta)` with the thresholds kept in order; the
                fit record (:class:`~linclass.linear.ordinal.newton.OrdinalFit`)
``summary``     the inference table of ``polr``'s ``summary()``
"""
