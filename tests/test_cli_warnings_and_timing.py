"""What ``compare`` and ``evaluate`` say besides their tables: no FutureWarning a command-line user
cannot act on (LogisticRegressionCV's defaults are values, not scikit-learn's placeholders), warning
summaries cut at a sentence's end only, and fit times without the process's warm-up."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import linclass
from linclass.cli import main
from linclass.cli.data import Data
from linclass.cli.evaluation import Tally, cross_validate
from linclass.cli.formatting import first_sentence


def test_logistic_cv_at_its_defaults_warns_no_future_warning():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] - X[:, 1] + rng.normal(size=120) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        model = linclass.LogisticRegressionCV().fit(X, y)
    # the defaults keep scikit-learn 1.9's meaning: accuracy, the legacy layout, no l1_ratios axis
    assert model.scoring is None and model.use_legacy_attributes is True and model.l1_ratios is None
    assert isinstance(model.coefs_paths_, dict) and model.coefs_paths_[1].shape == (5, 10, 4)


def test_logistic_cv_placeholder_warn_reads_as_the_default_silently():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 2))
    y = (X[:, 0] + rng.normal(size=90) > 0).astype(int)
    quiet = linclass.LogisticRegressionCV(Cs=4).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        old = linclass.LogisticRegressionCV(Cs=4, l1_ratios="warn", scoring="warn",
                                            use_legacy_attributes="warn").fit(X, y)
    np.testing.assert_array_equal(old.coef_, quiet.coef_)
    assert old.C_ == quiet.C_


def test_penalty_keeps_its_deprecation_warning():
    X = np.random.default_rng(2).normal(size=(60, 2))
    y = np.arange(60) % 2
    with pytest.warns(FutureWarning, match="'penalty' was deprecated"):
        linclass.LogisticRegressionCV(Cs=3, penalty="l2").fit(X, y)


@pytest.mark.parametrize("command", [["compare", "--models", "logistic-cv", "lda"],
                                     ["evaluate", "--model", "logistic-cv"]])
def test_commands_print_no_future_warning(command, capsys):
    code = main([*command, "--dataset", "wine", "--cv", "3"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "FutureWarning" not in err and "FutureWarning" not in out


@pytest.mark.parametrize("text, first", [
    ("The default value of the parameter 'scoring' will change from None, i.e. accuracy, to "
     "'neg_log_loss' in scikit-learn 1.11. To silence this warning, set it.",
     "The default value of the parameter 'scoring' will change from None, i.e. accuracy, to "
     "'neg_log_loss' in scikit-learn 1.11"),
    ("Set a value, e.g. C=1. Then refit.", "Set a value, e.g. C=1"),
    ("The chosen C_=0.01 lies on the edge of the grid. Widen Cs.",
     "The chosen C_=0.01 lies on the edge of the grid"),
    ("See Hastie et al. 2009 for the rule.\nIt is glmnet's.", "See Hastie et al. 2009 for the rule"),
    ("One sentence only.", "One sentence only"),
    ("x is 1.5 times y. Rescale", "x is 1.5 times y"),
])
def test_first_sentence_never_cuts_inside_a_sentence(text, first):
    assert first_sentence(text) == first


def test_warning_summary_keeps_the_whole_first_sentence():
    tally = Tally(np.array([0, 1]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("The default will change from None, i.e. accuracy, to 'neg_log_loss' in "
                      "1.11. Set it.", FutureWarning)
    tally.record_warnings(caught)
    (shown, count), = tally.warnings.values()
    assert shown.endswith("to 'neg_log_loss' in 1.11") and count == 1


class _SlowFirstFit:
    """A model whose first fit in the process is slow (imports, compiling), later fits fast."""

    warmed = False

    def fit(self, X, y):
        if not _SlowFirstFit.warmed:
            time.sleep(0.3)
            _SlowFirstFit.warmed = True
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.classes_[0])


def test_fit_times_leave_out_the_process_warm_up():
    _SlowFirstFit.warmed = False
    rng = np.random.default_rng(3)
    data = Data(rng.normal(size=(40, 2)), np.arange(40) % 2, ["a", "b"], "test")
    tallies, failed = cross_validate(["slow"], {"slow": _SlowFirstFit}, data, 4, desc="test")
    assert not failed
    assert max(tallies["slow"].fit_seconds) < 0.1, tallies["slow"].fit_seconds


def test_compare_says_how_it_times(capsys):
    code = main(["compare", "--dataset", "iris", "--cv", "3", "--models", "lda", "gda"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "fit seconds: the median over the folds" in out and "warm-up" in out
