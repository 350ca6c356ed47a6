"""What MASS's ``print(lda(...))`` shows, for a fitted
:class:`~linclass.estimators.linear_discriminant.LinearDiscriminantAnalysis`: :class:`LDASummary`
(made by its ``summary()``; the numbers by :func:`linclass.projection.discriminant_axes.mass_scaling`).

``print(summary)`` lays the parts out as R prints them: "Prior probabilities of groups", "Group
means", "Coefficients of linear discriminants" and, with more than one discriminant, "Proportion of
trace" (rounded to 4 decimals, as ``print.lda`` rounds it); numbers to 7 significant digits with one
number of decimals per column (per vector), wrapped at 80 characters.  The parts are attributes with
MASS's names (``prior``, ``counts``, ``means``, ``scaling``, ``svd``, ``N``), labelled pandas objects
as R labels them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from linclass.projection.discriminant_axes import proportion_of_trace

__all__ = ["LDASummary"]

_DIGITS = 7  # R's getOption("digits")
_WIDTH = 80  # R's getOption("width")


@dataclass(frozen=True)
class LDASummary:
    """MASS's ``lda`` fit as ``print.lda`` shows it.

    ``print(summary)`` gives MASS's layout; :meth:`to_frame` the coefficients as a pandas DataFrame.

    Attributes (MASS's names; pandas objects, NumPy arrays of the same shapes without pandas)
    -----------------------------------------------------------------------------------------
    prior : Series indexed by class
        Prior probabilities of the groups (``priors_``).
    counts : Series indexed by class
        Training rows (weight) per class.
    means : DataFrame of classes x features
        Group means.
    scaling : DataFrame of features x discriminants ('LD1', 'LD2', ...)
        Coefficients of the linear discriminants: the scores :math:`x^Tv_j` have pooled
        within-group covariance :math:`I` with the divisor :math:`n - K`.
    svd : ndarray of shape (n_discriminants,)
        Ratios of the between- and within-group standard deviations on the discriminants.
    proportion_of_trace : Series indexed by discriminant
        :math:`\\mathrm{svd}_j^2 / \\sum_i \\mathrm{svd}_i^2` (not rounded; ``print`` rounds it).
    N : float
        Number (total weight) of training rows.

    Attributes (the record's own)
    -----------------------------
    classes, feature_names : list
    prior_probabilities, class_counts : ndarray of shape (n_classes,)
    group_means : ndarray of shape (n_classes, n_features)
    coefficients : ndarray of shape (n_features, n_discriminants)
    singular_values : ndarray of shape (n_discriminants,)
    n_obs : float
    """

    classes: list
    feature_names: list
    prior_probabilities: np.ndarray
    class_counts: np.ndarray
    group_means: np.ndarray
    coefficients: np.ndarray
    singular_values: np.ndarray
    n_obs: float

    # ------------------------------------------------------------------------------ MASS's names
    @property
    def discriminants(self) -> list:
        """The names of the scaling's columns ('LD1', 'LD2', ...)."""
        return [f"LD{j + 1}" for j in range(self.coefficients.shape[1])]

    @property
    def prior(self):
        return _series(self.prior_probabilities, self._class_labels())

    @property
    def counts(self):
        return _series(self.class_counts, self._class_labels())

    @property
    def means(self):
        return _frame(self.group_means, self._class_labels(), self.feature_names)

    @property
    def scaling(self):
        return _frame(self.coefficients, self.feature_names, self.discriminants)

    @property
    def svd(self) -> np.ndarray:
        return np.array(self.singular_values, dtype=np.float64)

    @property
    def proportion_of_trace(self):
        return _series(proportion_of_trace(self.singular_values), self.discriminants)

    @property
    def N(self) -> float:  # noqa: N802 - MASS's name
        return self.n_obs

    def to_frame(self):
        """The coefficients of the linear discriminants as a pandas DataFrame (features x 'LD1',
        'LD2', ...).  Requires pandas (``pip install linclass[pandas]``)."""
        try:
            import pandas  # noqa: F401
        except ImportError as exc:  # pragma: no cover - pandas is in the test extras
            raise ImportError("LDASummary.to_frame() needs pandas: pip install 'linclass[pandas]'.") from exc
        return self.scaling

    def _class_labels(self) -> list:
        return [str(c) for c in self.classes]

    # ------------------------------------------------------------------------------ printing
    def __str__(self) -> str:
        labels = self._class_labels()
        lines = ["Prior probabilities of groups:", *_vector_lines(labels, self.prior_probabilities), "",
                 "Group means:", *_matrix_lines(labels, self.feature_names, self.group_means), "",
                 "Coefficients of linear discriminants:",
                 *_matrix_lines(self.feature_names, self.discriminants, self.coefficients)]
        if len(self.singular_values) > 1:
            trace = np.round(proportion_of_trace(self.singular_values), 4)
            lines += ["", "Proportion of trace:", *_vector_lines(self.discriminants, trace)]
        return "\n".join(lines)

    __repr__ = __str__


def _series(values: np.ndarray, index: list):
    try:
        import pandas as pd
    except ImportError:
        return np.array(values, dtype=np.float64)
    return pd.Series(np.array(values, dtype=np.float64), index=index)


def _frame(values: np.ndarray, index: list, columns: list):
    try:
        import pandas as pd
    except ImportError:
        return np.array(values, dtype=np.float64)
    return pd.DataFrame(np.array(values, dtype=np.float64), index=index, columns=columns)


# -------------------------------------------------------------------------- R's number format
def _significant(x: float) -> int:
    """The fewest significant digits (at most 7) that show ``x`` as 7 digits do."""
    target = float(f"{x:.{_DIGITS - 1}e}")
    for digits in range(1, _DIGITS):
        if float(f"{x:.{digits - 1}e}") == target:
            return digits
    return _DIGITS


def _format(values) -> list:
    """One format for all ``values``, as R's ``format``/``print`` chooses it: fixed notation with
    the decimals the most demanding value needs for 7 significant digits, or scientific where
    that is narrower."""
    x = np.asarray(values, dtype=float).ravel()
    finite = x[np.isfinite(x) & (x != 0)]
    if finite.size == 0:
        return [_special(v) if not np.isfinite(v) else "0" for v in x]
    sig = np.array([_significant(v) for v in finite])
    exponent = np.floor(np.log10(np.abs([float(f"{v:.{s - 1}e}") for v, s in zip(finite, sig)])))
    decimals = int(max(0, np.max(sig - 1 - exponent)))
    mantissa = int(np.max(sig)) - 1
    fixed = [f"{v:.{decimals}f}" for v in x]
    scientific = [f"{v:.{mantissa}e}" for v in x]
    chosen = fixed if max(map(len, fixed)) <= max(map(len, scientific)) else scientific
    return [_special(v) if not np.isfinite(v) else c for v, c in zip(x, chosen)]


def _special(value: float) -> str:
    return "NaN" if np.isnan(value) else ("Inf" if value > 0 else "-Inf")


def _vector_lines(names: list, values) -> list:
    """A named vector as R prints it: names over values, all right-aligned to one width, as many
    per line as fit."""
    cells = _format(values)
    width = max(len(c) for c in [*names, *cells])
    per_line = max(1, (_WIDTH + 1) // (width + 1))
    lines = []
    for start in range(0, len(cells), per_line):
        part = slice(start, start + per_line)
        lines.append(" ".join(f"{n:>{width}}" for n in names[part]))
        lines.append(" ".join(f"{c:>{width}}" for c in cells[part]))
    return lines


def _matrix_lines(rows: list, columns: list, values: np.ndarray) -> list:
    """A matrix as R prints it: row names left-aligned, each column formatted on its own and
    right-aligned under its name, blocks of columns that fit in 80 characters."""
    values = np.asarray(values, dtype=float)
    lead = max([len(r) for r in rows], default=0)
    cols = []
    for j, name in enumerate(columns):
        cells = _format(values[:, j])
        width = max(len(c) for c in [name, *cells])
        cols.append([f"{name:>{width}}", *[f"{c:>{width}}" for c in cells]])
    lines, block, used = [], [], lead
    for col in cols + [None]:
        if col is None or (block and used + 1 + len(col[0]) > _WIDTH):
            labels = [" " * lead, *[f"{r:<{lead}}" for r in rows]]
            lines += [" ".join([label, *(c[i] for c in block)]) for i, label in enumerate(labels)]
            block, used = [], lead
        if col is not None:
            block.append(col)
            used += 1 + len(col[0])
    return lines
