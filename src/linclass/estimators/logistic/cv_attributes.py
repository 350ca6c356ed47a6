"""The fitted attributes of ``LogisticRegressionCV`` in either of scikit-learn 1.9's layouts
(``use_legacy_attributes``):

=================  ====================================  =========================================
attribute          ``use_legacy_attributes=False``       ``True`` (scikit-learn 1.9's default)
=================  ====================================  =========================================
``coefs_paths_``   (n_folds, n_l1_ratios, n_Cs,          dict: class -> (n_folds, n_Cs,
                   n_rows, n_dof)                        [n_l1_ratios,] n_dof)
``scores_``        (n_folds, n_l1_ratios, n_Cs)          dict: class -> (n_folds, n_Cs,
                                                         [n_l1_ratios])
``n_iter_``        (n_folds, n_l1_ratios, n_Cs)          (1, n_folds, n_Cs, [n_l1_ratios])
``C_``             float                                 (n_rows,), the value repeated
``l1_ratio_``      float                                 (n_rows,), the value repeated
=================  ====================================  =========================================

n_rows is 1 for two classes (the dictionaries' one key is then ``classes_[1]``), else n_classes;
n_dof is n_features, plus 1 with an intercept (the last column); the bracketed l1_ratios axis is
there only when ``l1_ratios`` was given (n_l1_ratios is then 1 without it, in the new layout).
No mathematics here.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NoneArray", "fitted_layout"]


class NoneArray:
    """A fitted attribute that may be an object array of None (scikit-learn's ``l1_ratios_ =
    [None]`` when ``l1_ratios`` is not given, and the legacy ``l1_ratio_`` after it), kept in the
    instance as ``('None', shape)`` so that model files, which hold no object arrays but of str,
    save it; read back as the array.  Any other value is kept as it is."""

    def __set_name__(self, owner, name: str) -> None:
        self.name, self.slot = name, f"_{name}stored"

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        try:
            value = obj.__dict__[self.slot]
        except KeyError:
            raise AttributeError(f"{type(obj).__name__!r} object has no attribute "
                                 f"{self.name!r}") from None
        if isinstance(value, tuple):
            return np.full(value[1], None, dtype=object)
        return value

    def __set__(self, obj, value) -> None:
        if (isinstance(value, np.ndarray) and value.dtype == object
                and all(v is None for v in value.ravel())):
            value = ("None", tuple(int(n) for n in value.shape))
        obj.__dict__[self.slot] = value

    def __delete__(self, obj) -> None:
        obj.__dict__.pop(self.slot, None)


def fitted_layout(*, scores, n_iter, coefs, intercepts, classes, fit_intercept: bool, given,
                  legacy: bool, C: float, r: int, l1_ratio: float, penalty, refit: bool,
                  store_paths: bool = True) -> dict:
    """The attributes ``coefs_paths_``, ``scores_``, ``n_iter_``, ``C_``, ``l1_ratio_`` and
    ``l1_ratios_`` in the layout ``legacy`` selects.

    Parameters
    ----------
    scores, n_iter : ndarrays of shape (n_folds, n_l1_ratios, n_Cs)
    coefs : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_rows, n_features)
    intercepts : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_rows)
    classes : ndarray of shape (n_classes,)
    fit_intercept : bool
        Whether the intercepts are a column of ``coefs_paths_``.
    given : ndarray or None
        ``l1_ratios`` as given (None: not given; then ``l1_ratios_`` is ``[None]``).
    legacy : bool
    C : float
        The chosen C, as given in ``Cs`` (an int stays an int in the legacy ``C_``).
    r : int
        The index of the chosen l1_ratio; after a refit ``l1_ratio_`` is ``given[r]`` (None
        without ``l1_ratios`` in the legacy layout), as scikit-learn reports it.
    l1_ratio : float
        The chosen candidate's mixing (1 for the lasso whatever ``given`` says): ``l1_ratio_``
        without a refit.
    penalty : str
        The constructor's ``penalty`` (the new layout's ``l1_ratio_`` without ``l1_ratios`` is 1
        for 'l1', else 0, as scikit-learn sets it).
    refit : bool
    store_paths : bool
        False: no ``coefs_paths_``.
    """
    paths = np.concatenate([coefs, intercepts[..., None]], axis=-1) if fit_intercept else coefs
    n_iter = np.asarray(n_iter, dtype=np.int32)
    ratios_ = np.asarray([None]) if given is None else np.asarray(given)
    if not refit:
        chosen = float(l1_ratio)
    else:
        chosen = None if given is None else ratios_[r]
    if not legacy:
        if given is None:
            chosen = 1.0 if penalty == "l1" else 0.0
        out = {"scores_": np.array(scores), "n_iter_": n_iter, "C_": float(C),
               "l1_ratio_": float(chosen), "l1_ratios_": ratios_}
        if store_paths:
            out["coefs_paths_"] = paths
        return out
    binary = classes.size == 2
    keys = classes[1:] if binary else classes
    rows = len(keys)
    # (folds, ratios, Cs, ...) -> scikit-learn's (folds, Cs, ratios, ...); the ratios axis dropped
    # when l1_ratios was not given
    by_c = np.swapaxes(np.asarray(scores), 1, 2)
    paths = np.swapaxes(paths, 1, 2)
    n_iter = np.swapaxes(n_iter, 1, 2)[None]
    if given is None:
        by_c, paths, n_iter = by_c[:, :, 0], paths[:, :, 0], n_iter[:, :, :, 0]
    out = {"scores_": {k: by_c.copy() for k in keys}, "n_iter_": n_iter,
           "C_": np.asarray([C] * rows), "l1_ratio_": np.asarray([chosen] * rows),
           "l1_ratios_": ratios_}
    if store_paths:
        out["coefs_paths_"] = {k: np.ascontiguousarray(paths[..., j, :]) for j, k in enumerate(keys)}
    return out
