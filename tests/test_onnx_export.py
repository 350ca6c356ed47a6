"""ONNX export (:func:`linclass.to_onnx`, ``linclass export --onnx``), checked in onnxruntime.

* Every registry entry and variant with a linear or Gaussian scoring form is fitted on real data
  (iris with string labels, wine, breast cancer; the models of counts on digits' pixel counts, all
  ten classes and 3 against 8), exported with float32 input and run by onnxruntime on held-out rows:
  the labels are linclass's (except on rows whose two largest probabilities, or decision values, lie
  within 1e-5 of each other) and the probabilities within 1e-5 of linclass's on the same float32
  rows (decision values, for the perceptron, within 1e-6 relative).  Kernel Fisher discriminants
  (every variant) are refused, naming why.
* Schemes beyond the registry's defaults: one-vs-rest / one-vs-one / K-class over Gaussian naive
  Bayes and over the perceptron (decision values only), standardised QDA and one-vs-one.
* float64 input; ZipMap; a scikit-learn Pipeline converted by skl2onnx itself; the refusals (what
  cannot be exported, a wrong X_sample, an old opset); labels of other types than strings.
* The command writes a file that onnxruntime loads and that predicts as the saved model does, and
  refuses a kernel model in one line.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.model_selection import train_test_split

import linclass
from conftest import CASES, cli, data_kind, one_error_line, params
from linclass.export import NotExportableError

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("skl2onnx")

TOLERANCE = 1e-5  # probabilities, float32 input
RELATIVE = 1e-6  # decision values, float32 output
# refused, with what the message says
REFUSED = {linclass.KernelFisherDiscriminantAnalysis: "kernel expansion",
           linclass.OrderedLogisticRegression: "differences of a cumulative distribution"}


# ------------------------------------------------------------------------------------------- data
def _split(X, y):
    return train_test_split(np.asarray(X, dtype=np.float64), y, test_size=0.3, random_state=0,
                            stratify=y)


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, np.array(["setosa", "versicolor", "virginica"])[y]


def _digits(bits: bool = False, pair: bool = False):
    X, y = load_digits(return_X_y=True)
    if pair:
        keep = (y == 3) | (y == 8)
        X, y = X[keep], y[keep]
    return (X > 8).astype(float) if bits else X, y


PROBLEMS = {
    "iris": _iris,
    "wine": lambda: load_wine(return_X_y=True),
    "breast_cancer": lambda: load_breast_cancer(return_X_y=True),
    "digits": _digits,
    "digits_3_8": lambda: _digits(pair=True),
    "digit_bits": lambda: _digits(bits=True),
    "digit_bits_3_8": lambda: _digits(bits=True, pair=True),
}
GAUSS = ("iris", "wine", "breast_cancer")
FOR_KIND = {"gauss": GAUSS, "counts": ("digits", "digits_3_8"),
            "binary": ("digit_bits", "digit_bits_3_8")}


def problem(name: str):
    return _split(*PROBLEMS[name]())


def fitted(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence / singular-covariance warnings: not the point
        return model.fit(X, y)


# -------------------------------------------------------------------------------------- the check
def run(graph, X):
    """``label, probabilities`` of ``graph`` on rows ``X`` in onnxruntime."""
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["X"]
    assert [o.name for o in session.get_outputs()] == ["label", "probabilities"]
    return session.run(None, {"X": X})


def reference(model, X):
    """What the graph's second output should hold: ``predict_proba``, or the decision values laid
    out per class ((-d, d) for two classes)."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X), True
    d = model.decision_function(X)
    return (np.column_stack([-d, d]) if d.ndim == 1 else d), False


def near_tie(values, proba: bool):
    """Rows whose two largest entries are within the tolerance of each other (labels may differ)."""
    top2 = np.sort(values, axis=1)[:, -2:]
    scale = 1.0 if proba else np.maximum(1.0, np.abs(top2[:, 1]))
    return top2[:, 1] - top2[:, 0] <= TOLERANCE * scale


def compare(model, X_test, dtype=np.float32):
    """Export ``model``, run it on ``X_test`` (as ``dtype``) and compare with linclass on the same
    rows; returns the largest difference of the second output (absolute for probabilities,
    relative for decision values)."""
    X = np.ascontiguousarray(X_test, dtype=dtype)
    graph = linclass.to_onnx(model, X[:1])
    label, second = run(graph, X)
    rows = X.astype(np.float64)
    want, proba = reference(model, rows)
    assert second.dtype == dtype and second.shape == want.shape
    expected = model.predict(rows)
    differ = label != expected
    assert not np.any(differ & ~near_tie(want, proba)), (label[differ], expected[differ])
    if proba:
        return float(np.max(np.abs(second - want)))
    return float(np.max(np.abs(second - want) / np.maximum(1.0, np.abs(want))))


def exportable(case) -> bool:
    return case.cls not in REFUSED


# ---------------------------------------------------------------------------- every registry case
CASE_PROBLEMS = [(case, name) for case in CASES if exportable(case) for name in FOR_KIND[data_kind(case)]]


@pytest.mark.parametrize("case, name",
                         [pytest.param(c, n, id=f"{c.id}-{n}") for c, n in CASE_PROBLEMS])
def test_registry_case_runs_in_onnxruntime_as_in_linclass(case, name):
    X_train, X_test, y_train, _ = problem(name)
    model = fitted(case.make(), X_train, y_train)
    assert compare(model, X_test) <= (TOLERANCE if hasattr(model, "predict_proba") else RELATIVE)


@pytest.mark.parametrize("case", params([c for c in CASES if not exportable(c)]))
def test_models_without_a_scoring_form_are_refused_saying_why(case):
    X_train, _, y_train, _ = problem("iris")
    model = fitted(case.make(), X_train, y_train)
    with pytest.raises(NotExportableError, match=REFUSED[case.cls]):
        linclass.to_onnx(model)


def test_every_registry_case_is_exported_or_refused():
    covered = {c.id for c, _ in CASE_PROBLEMS} | {c.id for c in CASES if not exportable(c)}
    assert covered == {c.id for c in CASES}


# ------------------------------------------------------------------------------ composed schemes
SCHEMES = {
    "ovr-gnb": lambda: linclass.OneVsRestClassifier(linclass.GaussianNB()),
    "ovo-gnb": lambda: linclass.OneVsOneClassifier(linclass.GaussianNB()),
    "ovr-perceptron": lambda: linclass.OneVsRestClassifier(linclass.Perceptron(random_state=0)),
    "ovo-perceptron": lambda: linclass.OneVsOneClassifier(linclass.Perceptron(random_state=0)),
    "kclass-perceptron": lambda: linclass.KClassDiscriminant(linclass.Perceptron(random_state=0)),
    "kclass-qda": lambda: linclass.KClassDiscriminant(linclass.QuadraticDiscriminantAnalysis()),
    "standardized-qda": lambda: linclass.StandardizedClassifier(
        linclass.QuadraticDiscriminantAnalysis(reg_param=0.01)),
    "standardized-ovo": lambda: linclass.StandardizedClassifier(
        linclass.OneVsOneClassifier(linclass.LogisticRegression())),
    "ovo-standardized-perceptron": lambda: linclass.OneVsOneClassifier(
        linclass.StandardizedClassifier(linclass.Perceptron(basis="poly", random_state=0))),
}


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
@pytest.mark.parametrize("name", GAUSS)
def test_schemes_over_other_models_run_as_in_linclass(scheme, name):
    X_train, X_test, y_train, _ = problem(name)
    model = fitted(SCHEMES[scheme](), X_train, y_train)
    assert compare(model, X_test) <= (TOLERANCE if hasattr(model, "predict_proba") else RELATIVE)


def test_one_vs_one_coupling_equals_the_bordered_solve():
    """The graph's reduced normal equations give :func:`~linclass.strategies.voting.couple_pairwise`'s
    solution (in NumPy, on random pairwise probabilities)."""
    from linclass.export.graph_multiclass import coupling_system
    from linclass.strategies.voting import couple_pairwise

    rng = np.random.default_rng(0)
    for K in (3, 4, 7):
        pairs = np.array([(i, j) for i in range(K) for j in range(i + 1, K)])
        r = rng.uniform(0.01, 0.99, size=(20, len(pairs)))
        to_matrix, to_rhs = coupling_system(pairs, K)
        F = np.hstack([r * r, (1 - r) * (1 - r), r * (1 - r)])
        A = (F @ to_matrix).reshape(-1, K - 1, K - 1)
        q = np.linalg.solve(A, (F @ to_rhs)[:, :, None])[:, :, 0]
        p = np.column_stack([q, 1 - q.sum(axis=1)])
        np.testing.assert_allclose(p, couple_pairwise(r, pairs, K), atol=1e-12)


# ------------------------------------------------------------------------------ inputs and outputs
@pytest.mark.parametrize("model", [linclass.QuadraticDiscriminantAnalysis(reg_param=0.01),
                                   linclass.OneVsOneClassifier(linclass.LogisticRegression()),
                                   linclass.CategoricalNB()], ids=type)
def test_float64_input_agrees_to_rounding(model):
    X_train, X_test, y_train, _ = problem("digits" if isinstance(model, linclass.CategoricalNB)
                                          else "wine")
    model = fitted(model, X_train, y_train)
    assert compare(model, X_test, dtype=np.float64) <= 1e-12


def test_zipmap_gives_skl2onnx_maps():
    X_train, X_test, y_train, _ = problem("iris")
    model = fitted(linclass.LinearDiscriminantAnalysis(), X_train, y_train)
    graph = linclass.to_onnx(model, X_test[:1].astype(np.float32), zipmap=True)
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    label, maps = session.run(None, {"X": X_test.astype(np.float32)})
    proba = model.predict_proba(X_test.astype(np.float32).astype(np.float64))
    assert sorted(maps[0]) == sorted(model.classes_)
    got = np.array([[row[c] for c in model.classes_] for row in maps])
    assert np.max(np.abs(got - proba)) <= TOLERANCE


@pytest.mark.parametrize("labels", [lambda y: y == "virginica", lambda y: (y == "setosa") * 2.0 + 1,
                                    lambda y: np.unique(y, return_inverse=True)[1] * 7 - 3],
                         ids=["bool", "integral-float", "int"])
def test_labels_that_are_not_strings_are_int64(labels):
    X_train, X_test, y_train, _ = problem("iris")
    model = fitted(linclass.LogisticRegression(), X_train, labels(y_train))
    label, _ = run(linclass.to_onnx(model), X_test.astype(np.float32))
    assert label.dtype == np.int64
    assert np.array_equal(label, model.predict(X_test.astype(np.float32).astype(np.float64)))


def test_feature_names_are_recorded():
    import pandas as pd

    X, y = load_iris(return_X_y=True, as_frame=True)
    model = fitted(linclass.GaussianNB(), X, y)
    graph = linclass.to_onnx(model)
    props = {p.key: p.value for p in graph.metadata_props}
    assert json.loads(props["feature_names"]) == list(X.columns)
    label, _ = run(graph, X.to_numpy(np.float32))
    assert np.array_equal(label, model.predict(pd.DataFrame(X.to_numpy(np.float32).astype(float),
                                                            columns=X.columns)))


def test_a_pipeline_converts_with_skl2onnx_itself():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from skl2onnx import to_onnx as skl2onnx_to_onnx

    linclass.export.register_converters()
    X_train, X_test, y_train, _ = problem("wine")
    pipe = fitted(make_pipeline(StandardScaler(), linclass.LogisticRegression()), X_train, y_train)
    X = X_test.astype(np.float32)
    graph = skl2onnx_to_onnx(pipe, X[:1], options={linclass.LogisticRegression: {"zipmap": False}})
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    label, proba = session.run(None, {session.get_inputs()[0].name: X})
    assert np.array_equal(label, pipe.predict(X.astype(np.float64)))
    assert np.max(np.abs(proba - pipe.predict_proba(X.astype(np.float64)))) <= TOLERANCE


# ------------------------------------------------------------------------------------- refusals
def _formula_model():
    import pandas as pd

    X, y = load_iris(return_X_y=True, as_frame=True)
    frame = X.rename(columns=lambda c: c.split(" (")[0].replace(" ", "_")).assign(y=(y == 1))
    return fitted(linclass.FormulaClassifier("y ~ sepal_length + petal_width"), frame, None)


@pytest.mark.parametrize("make, reason", [
    (lambda: fitted(linclass.Perceptron(basis=np.tanh), *problem("iris")[::2]), "Python code"),
    (lambda: fitted(linclass.LinearDiscriminantAnalysis(posterior="predictive"),
                    *problem("iris")[::2]), "plug-in"),
    (_formula_model, "formulaic"),
    (lambda: fitted(__import__("sklearn.linear_model").linear_model.LogisticRegression(),
                    *problem("iris")[::2]), "not a linclass classifier"),
], ids=["callable-basis", "predictive-posterior", "formula", "foreign"])
def test_what_cannot_be_exported_is_refused_saying_why(make, reason):
    with pytest.raises(NotExportableError, match=reason):
        linclass.to_onnx(make())


def test_bad_arguments_are_refused():
    X_train, _, y_train, _ = problem("iris")
    model = fitted(linclass.LinearDiscriminantAnalysis(), X_train, y_train)
    with pytest.raises(ValueError, match=r"takes 4 features"):
        linclass.to_onnx(model, X_train[:, :3])
    with pytest.raises(ValueError, match="opset 13"):
        linclass.to_onnx(model, target_opset=12)
    with pytest.raises(linclass.exceptions.NotFittedError):
        linclass.to_onnx(linclass.LinearDiscriminantAnalysis())


# ------------------------------------------------------------------------------------ the command
@pytest.mark.parametrize("model, double", [("lda", False), ("perceptron", False), ("qda", True)])
def test_export_command_writes_a_graph_onnxruntime_runs(tmp_path, capsys, model, double):
    model_file, graph_file = tmp_path / "m.linclass", tmp_path / "m.onnx"
    code, _, err = cli(["fit", "--model", model, "--dataset", "iris", "--out", model_file], capsys)
    assert code == 0, err
    code, out, err = cli(["export", "--model-file", model_file, "--onnx", graph_file,
                          *(["--double"] if double else [])], capsys)
    assert code == 0, err
    assert str(graph_file) in out and ("float64" if double else "float32") in out
    saved = linclass.load(model_file)
    X = load_iris().data.astype(np.float64 if double else np.float32)
    session = ort.InferenceSession(str(graph_file), providers=["CPUExecutionProvider"])
    label, second = session.run(None, {"X": X})
    import pandas as pd

    frame = pd.DataFrame(X.astype(np.float64), columns=saved.feature_names_in_)
    assert np.array_equal(label, saved.predict(frame))
    want, proba = reference(saved, frame)
    scale = 1.0 if proba else np.maximum(1.0, np.abs(want))
    assert np.max(np.abs(second - want) / scale) <= TOLERANCE


def test_export_command_refuses_a_kernel_model_in_one_line(tmp_path, capsys):
    model_file = tmp_path / "k.linclass"
    code, _, err = cli(["fit", "--model", "kfda", "--dataset", "iris", "--out", model_file], capsys)
    assert code == 0, err
    graph_file = tmp_path / "k.onnx"
    code, out, err = cli(["export", "--model-file", model_file, "--onnx", graph_file], capsys)
    assert code == 1
    assert "kernel expansion" in one_error_line(code, err, out)
    assert not graph_file.exists()
