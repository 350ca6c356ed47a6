"""Firth's penalised likelihood (Firth 1993): the log-likelihood plus half the log-determinant of
the Fisher information, a modified likelihood over the logistic datafit rather than a penalty on
the coefficients.  Two classes and K classes (objective, multinomial: brglm2's ``brglmFit`` /
``brmultinom``), on chunked data (chunked); the modified likelihood's parts (likelihood), where a
fit on separated data starts (starts), its profile intervals (profile) and its inference record
(inference, which also holds the :class:`~linclass.linear.firth.inference.Firth` entry of the
penalty table)."""
