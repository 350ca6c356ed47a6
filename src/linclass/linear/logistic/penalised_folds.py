"""The penalised logistic / softmax objectives of a cross-validation's folds over a chunked design (a
Dask collection, a file read in blocks), all answered by the same passes: what proximal Newton
(:func:`~linclass.linear.solvers.prox_newton_chunked.prox_newton_requests`) asks of the rows, for
every fold's fit (and the fit on all rows) at once.

Each row carries its fold (a rule of its place in the data, :mod:`linclass.selection.fold_rules`;
-1 for a row no fold holds out).  Fold g's fit is the penalised fit on the rows outside fold g, so
one pass answers a request of every fit: in each block, fit g's loss changes, summed loss,
gradient and Hessian (the terms of
:mod:`~linclass.linear.logistic.penalised_chunked`, in the same layout and centring) are summed
over the block's rows outside fold g, at fit g's own coefficients.  The folds' coefficients differ,
so each fit's terms are its own products (a pass costs the work of one evaluation per fit); only
what does not depend on the coefficients, the class totals of the first passes, is summed per fold
once and combined.  With the terms at fit g's point comes its score on the rows it held out (fold
g), as scikit-learn's 'accuracy' and 'neg_log_loss' count them, so scoring a path costs no pass of
its own.

Passes: one for the labels and each block's place (:func:`linclass.selection.fold_rules.label_counts`,
done by the caller), one for the folds' class totals and the centring (:class:`FoldedPenalised`),
then one per round of requests.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from linclass.core.chunks import Chunk, require_two_classes
from linclass.linear.logistic.class_weights import class_weights
from linclass.linear.logistic.losses import row_logsumexp
from linclass.linear.logistic.penalised_chunked import (ChunkedPenalised, augmented, rows_terms,
                                                        weighted_rows)

__all__ = ["FoldedPenalised", "HELD_OUT", "held_out_sums"]

#: the entries of a fit's held-out sums: weighted correct predictions, weighted clipped
#: log-probability of the true class, the held-out sample weight, and that weight times the class
#: weights
HELD_OUT = ("accuracy", "log_probability", "weight", "class_weighted")


def held_out_sums(A, yi, raw, sw, binary, theta) -> np.ndarray:
    """The sums :data:`HELD_OUT` over the rows ``A`` under ``theta``: accuracy takes the first most
    probable class (two classes: class 1 when the log-odds are positive), the log-probability is
    clipped where scikit-learn's ``log_loss`` clips the probability (float64's machine epsilon),
    as :func:`linclass.selection.scoring.held_out_value`."""
    S = A @ theta.T
    if binary:
        S = np.column_stack([np.zeros(S.shape[0]), S[:, 0]])
    logp = S - row_logsumexp(S)
    right = (np.argmax(S, axis=1) == yi).astype(np.float64) if yi.size else np.zeros(0)
    eps = np.finfo(np.float64).eps
    own = np.clip(logp[np.arange(yi.size), yi], np.log(eps), np.log1p(-eps))
    return np.array([raw @ right, raw @ own, raw.sum(), sw.sum()])


def _block(chunk: Chunk, n_features, classes, per_class, rule, again=True):
    """A block's rows validated: ``(X, class indices, raw weights, weights with the class weights,
    folds)``; None for a block without rows."""
    rows = weighted_rows(chunk, n_features, classes, per_class, again)
    if rows is None:
        return None
    X, yi, raw, sw = rows
    fold = (np.full(X.shape[0], -1, dtype=np.intp) if rule is None
            else np.asarray(rule.of(chunk.index, yi)))
    return X, yi, raw, sw, fold


def _fold_totals(chunk: Chunk, n_features, classes, rule, n_groups):
    """The block's raw class totals per group (the folds, then the rows no fold holds out), shape
    (n_groups, K), and its per-class weighted feature sums, shape (K, d)."""
    rows = _block(chunk, n_features, classes, None, rule, again=False)
    if rows is None:
        return None
    X, yi, raw, _, fold = rows
    group = np.where(fold < 0, n_groups - 1, fold)
    totals = np.zeros((n_groups, classes.size))
    np.add.at(totals, (group, yi), raw)
    onehot = np.zeros((yi.size, classes.size))
    onehot[np.arange(yi.size), yi] = raw
    return totals, onehot.T @ X


def _add_pair(a, b):
    return a[0] + b[0], a[1] + b[1]


def _folds_pass(chunk: Chunk, n_features, classes, per_class, offset, binary, rule, requests):
    """One block's answers to ``requests`` (``(fold or None, theta, step, ts, model)`` each): fit
    g's terms over the block's rows outside fold g (every row for None), with its held-out sums
    over fold g's rows appended to the terms."""
    rows = _block(chunk, n_features, classes, per_class, rule)
    if rows is None:
        return None
    X, yi, raw, sw, fold = rows
    A = augmented(X, offset)
    out = []
    for g, theta, step, ts, model in requests:
        if g is None:
            changes, terms = rows_terms(A, yi, sw, binary, theta, step, ts, model)
        else:
            train = fold != g
            changes, terms = rows_terms(A[train], yi[train], sw[train], binary, theta, step, ts,
                                        model)
            if model:
                held = ~train
                point = theta if step is None else theta + ts[0] * step
                terms = terms + (held_out_sums(A[held], yi[held], raw[held], sw[held], binary,
                                               point),)
        out.append((changes, terms))
    return out


def _add_answers(a, b):
    return [(x[0] + y[0], None if x[1] is None else tuple(u + v for u, v in zip(x[1], y[1])))
            for x, y in zip(a, b)]


class FoldedPenalised:
    """The folds' penalised objectives over a chunk source, answered together (module docstring).

    Construction makes one pass: each fold's class totals (sample weights times ``class_weight``'s,
    the latter from every row's totals, as in memory) and the centring offset (the weighted mean of
    every row; zero without an intercept).

    Parameters
    ----------
    source : a chunk source
    classes : ndarray of shape (K,)
        Every label (the first pass's).
    rule : a fold rule (``rule.of(block index, class indices)``, ``rule.n_splits``) or None
        None: no folds (a path on every row).
    class_weight : dict, 'balanced' or None
    fit_intercept : bool
    owner : str
        The estimator named in errors.

    Attributes
    ----------
    passes : int
        Passes over the data made by this object (its first included).
    """

    def __init__(self, source, classes, rule, *, class_weight=None, fit_intercept=True,
                 owner="LogisticRegressionCV"):
        self.source, self.classes, self.rule = source, classes, rule
        self.n_splits = 0 if rule is None else int(rule.n_splits)
        d = self.d = int(source.n_features)
        groups = self.n_splits + 1
        out = source.map_reduce(_fold_totals, _add_pair, d, classes, rule, groups)
        if out is None:
            raise ValueError(f"Found array with 0 sample(s) (shape=(0, {d})) while a minimum of 1 "
                             "is required.")
        raw, sums = out
        self.per_class = class_weights(classes, raw.sum(axis=0), class_weight)
        factor = np.ones(classes.size) if self.per_class is None else self.per_class
        self.group_totals = raw * factor  # (groups, K), under the objective's weights
        self.held_weight = raw.sum(axis=1)[: self.n_splits]
        totals = self.group_totals.sum(axis=0)
        require_two_classes(owner, SimpleNamespace(classes=classes, counts=totals))
        self.total = float(totals.sum())
        self.offset = (factor @ sums) / self.total if fit_intercept else np.zeros(d)
        self.fit_intercept = bool(fit_intercept)
        self.binary = classes.size == 2
        self.m = 1 if self.binary else int(classes.size)
        self.passes = 1

    def training_totals(self, g) -> np.ndarray:
        """The class totals (objective's weights) of fit g's rows: every row for None, else the
        rows outside fold g."""
        if g is None:
            return self.group_totals.sum(axis=0)
        return np.delete(self.group_totals, g, axis=0).sum(axis=0)

    def held_out_totals(self, g) -> np.ndarray:
        """The class totals (objective's weights) of the rows fold g holds out."""
        return self.group_totals[g]

    def view(self, g, penalty) -> ChunkedPenalised:
        """Fit g's objective under ``penalty`` (g None: every row) for the solver: its layout,
        totals, start, coefficient maps and null log-likelihood.  Its passes are this object's
        (:meth:`evaluate`): it has no source of its own."""
        totals = self.training_totals(g)
        smooth = SimpleNamespace(source=None, classes=self.classes, per_class=self.per_class,
                                 n_features=self.d, fit_intercept=self.fit_intercept,
                                 offset=self.offset, total=float(totals.sum()),
                                 class_weight=totals, passes=0)
        return ChunkedPenalised(smooth, penalty)

    def evaluate(self, requests: list) -> list:
        """One pass answering ``requests``, a list of ``(g, Evaluation)`` (g: the fold, None for
        every row): the answer ``(changes, terms)`` of each, fold fits' terms ending with their
        held-out sums (:data:`HELD_OUT`)."""
        specs = [(g, np.hstack([r.W, np.reshape(r.b, (-1, 1))]),
                  None if r.dW is None else np.hstack([r.dW, np.reshape(r.db, (-1, 1))]),
                  np.asarray(r.ts, dtype=np.float64), r.model) for g, r in requests]
        self.passes += 1
        out = self.source.map_reduce(_folds_pass, _add_answers, self.d, self.classes,
                                     self.per_class, self.offset, self.binary, self.rule, specs)
        if out is None:  # cannot happen: the first pass found rows
            raise ValueError("The data have no rows.")
        return out
