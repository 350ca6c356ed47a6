"""The graph of one :class:`~linclass.export.forms.Plan`: its feature steps, class scores, labels and
probabilities as ONNX operators (:class:`~linclass.export.graph_ops.Ops`), in float64.

Posteriors are computed as :mod:`linclass.core.posterior` computes them: each row's largest score is
subtracted before the exponential, :math:`p_k = e^{a_k - m} / \\sum_j e^{a_j - m}`, so no score
overflows.  Labels are the arg max of the scores (ties to the first class), or the perceptron's step
for its two-class model.  The multi-class schemes are :mod:`linclass.export.graph_multiclass`.
"""

from __future__ import annotations

from dataclasses import dataclass

from linclass.export import forms

__all__ = ["Heads", "class_scores", "difference", "features", "log_softmax", "positive", "single_heads",
           "single_scores", "softmax", "symmetric"]


@dataclass(frozen=True)
class Heads:
    """What a plan's graph gives, as the names of its values: ``index`` (n,) int64, the predicted
    class's position in ``classes_``; ``output`` (n, K) float64, the probabilities, or the decision
    values of a model without probabilities (two classes: :math:`(-d, d)`, as skl2onnx lays out its
    perceptron's)."""

    index: str
    output: str


# ---------------------------------------------------------------------------------- feature steps
def features(ops, steps: tuple, x):
    """``x`` after each of ``steps``."""
    for step in steps:
        x = _STEPS[type(step)](ops, step, x)
    return x


def _standardize(ops, step: forms.Standardize, x):
    return ops.div(ops.sub(x, ops.const(step.mean)), ops.const(step.scale))


def _binarize(ops, step: forms.Binarize, x):
    return ops.to_double(ops.greater(x, ops.const([step.threshold])))


def _project(ops, step: forms.Project, x):
    return ops.matmul(ops.sub(x, ops.const(step.center)), ops.const(step.directions))


def _monomials(ops, step: forms.Monomials, x):
    blocks = [x]
    for parents, variables in zip(step.parents, step.variables):
        blocks.append(ops.mul(ops.gather(blocks[-1], ops.index(parents), axis=1),
                              ops.gather(x, ops.index(variables), axis=1)))
    return blocks[0] if len(blocks) == 1 else ops.concat(blocks)


_STEPS = {forms.Standardize: _standardize, forms.Binarize: _binarize, forms.Project: _project,
          forms.Monomials: _monomials}


# ----------------------------------------------------------------------------------- class scores
def class_scores(ops, scores, x):
    """Class scores of shape (n, K) of one of the forms of :mod:`linclass.export.forms`."""
    return _SCORES[type(scores)](ops, scores, x)


def _linear(ops, s: forms.LinearScores, x):
    if s.center is not None:
        x = ops.sub(x, ops.const(s.center))
    return ops.add(ops.matmul(x, ops.const(s.coef.T)), ops.const(s.intercept))


def _whitened(ops, s: forms.WhitenedScores, x):
    K, d = s.const.size, s.whiten.shape[0]
    z = ops.sub(ops.matmul(ops.sub(x, ops.const(s.center)), ops.const(s.whiten)), ops.const(s.offsets))
    distance = ops.row_sum(ops.reshape(ops.mul(z, z), [-1, K, d]), axis=2, keepdims=0)
    return ops.add(ops.mul(distance, ops.const([-0.5])), ops.const(s.const))


def _diagonal(ops, s: forms.DiagonalScores, x):
    # (n, 1, d) - (K, d) -> (n, K, d): each row against each class
    diff = ops.sub(ops.unsqueeze(ops.sub(x, ops.const(s.center)), 1), ops.const(s.offsets))
    distance = ops.row_sum(ops.mul(ops.mul(diff, diff), ops.const(s.inv_var)), axis=2, keepdims=0)
    return ops.add(ops.mul(distance, ops.const([-0.5])), ops.const(s.const))


def _categorical(ops, s: forms.CategoricalScores, x):
    # codes as CategoricalNB reads them: at most m_j (every unseen category), truncated to integers
    capped = ops.maximum(ops.minimum(x, ops.const(s.limits)), ops.const([0.0]))
    rows = ops.add(ops.to_int64(capped), ops.index(s.starts))
    looked_up = ops.gather(ops.const(s.table), rows, axis=0)  # (n, d, K)
    return ops.add(ops.row_sum(looked_up, axis=1, keepdims=0), ops.const(s.intercept))


_SCORES = {forms.LinearScores: _linear, forms.WhitenedScores: _whitened,
           forms.DiagonalScores: _diagonal, forms.CategoricalScores: _categorical}


# ------------------------------------------------------------------------------------- posteriors
def softmax(ops, S, axis: int = 1):
    """:math:`e^{a_k - m} / \\sum_j e^{a_j - m}` along ``axis``, with :math:`m` the largest score."""
    e = ops.exp(ops.sub(S, ops.row_max(S, axis)))
    return ops.div(e, ops.row_sum(e, axis))


def log_softmax(ops, S, axis: int = 1):
    """:math:`a_k - m - \\ln\\sum_j e^{a_j - m}` along ``axis``."""
    shifted = ops.sub(S, ops.row_max(S, axis))
    return ops.sub(shifted, ops.log(ops.row_sum(ops.exp(shifted), axis)))


def difference(ops, S, axis: int = 1):
    """:math:`a_1 - a_0` of two-class scores along ``axis`` (kept, of length 1): the decision
    value."""
    return ops.sub(ops.columns(S, 1, 2, axis), ops.columns(S, 0, 1, axis))


def symmetric(ops, d):
    """:math:`(-d, d)`, shape (n, 2), of decision values ``d`` of shape (n, 1)."""
    return ops.concat([ops.neg(d), d])


def positive(ops, d, nonnegative):
    """Whether two-class models with decision values ``d`` predict their second class: ``d > 0``
    (the arg max; a tie goes to the first class), or ``d >= 0`` where ``nonnegative`` (the
    perceptron's step).  ``nonnegative`` is a bool or a boolean constant broadcasting with ``d``."""
    zero = ops.const([0.0])
    if nonnegative is True:
        return ops.greater_or_equal(d, zero)
    if nonnegative is False:
        return ops.greater(d, zero)
    return ops.where(nonnegative, ops.greater_or_equal(d, zero), ops.greater(d, zero))


# ------------------------------------------------------------------------------------------ heads
def single_scores(ops, plan: forms.Single, x):
    """The class scores of a single model on raw rows ``x``."""
    return class_scores(ops, plan.scores, features(ops, plan.steps, x))


def single_heads(ops, plan: forms.Single, x) -> Heads:
    """The label index and the probabilities (or decision values) of a single model on raw rows
    ``x``."""
    S = single_scores(ops, plan, x)
    if plan.rule == "nonnegative":
        index = ops.reshape(ops.to_int64(positive(ops, difference(ops, S), True)), [-1])
    else:
        index = ops.argmax(S)
    if plan.proba:
        return Heads(index, softmax(ops, S))
    return Heads(index, symmetric(ops, difference(ops, S)) if plan.n_classes == 2 else S)
