"""Formulas and factors: from a data frame to the columns a model is fitted on.

The parsing and encoding are formulaic's (dummy and other codings of factors, interactions,
stateful transforms such as ``center`` or ``bs``); this package keeps what a fitted model needs to
encode new rows exactly as its training rows were, as plain data:

:mod:`~linclass.formula.safety`    which Python a formula's terms may hold (checked before any is
                                   evaluated, so that a model file never runs code)
:mod:`~linclass.formula.encoding`  :class:`FormulaEncoding`, the formula with its factor levels and
                                   transforms' state; fitting it on a frame, rebuilding formulaic's
                                   model spec from it, and encoding new rows
:mod:`~linclass.formula.frames`    the checks of a frame first (missing values, unseen levels)
:mod:`~linclass.formula.response`  the left-hand side (the class labels) and weights named by column
:mod:`~linclass.formula.terms`     which columns each term owns, and which terms R's ``drop1`` may
                                   drop (marginality)
:mod:`~linclass.formula.variables` the model's columns as functions of the data's variables:
                                   their derivatives and the counterfactual encodings that
                                   marginal effects per variable need

formulaic and pandas are imported only when a formula is used (``pip install linclass[formula]``).
"""

from linclass.formula.encoding import FormulaEncoding

__all__ = ["FormulaEncoding"]
