"""The checks of assignment 10, the capstone: a method chosen, tuned and justified by the student.

The problem is scikit-learn's Wisconsin breast cancer set (569 tumours, 30 features, labels 0 for
malignant and 1 for benign).  The student writes ``fit_predict(X_train, y_train, X_test)``, which
fits the chosen model on the training part only and returns the labels it predicts for X_test.
The checks draw fresh stratified splits of the data set (30 % of each class held out) and ask:

1. the mean held-out accuracy over five splits, against that of a reference on the same splits
   (StandardScaler, then SVC with the Gaussian kernel, C = 10, gamma = 0.01, chosen once by
   10 x 5-fold cross-validation on the whole set, where it scores 0.978), less a margin of 0.02;
2. the labels of X_test passed whole, again, in two halves, point by point, and with a point far
   from all others added: the label of a test point must not depend on the other test points (a
   scaler fitted on X_test, or on X_train and X_test together, makes it depend on them);
3. the contract: a vector of len(X_test) labels taken from those of y_train, whatever the labels
   are called (0/1, -1/+1, the names swapped, 7/3) and in whatever order the training points come;
4. the units of the features: the labels must not change when each feature is multiplied by a
   power of ten, one of little information made by far the largest.

The margin.  Over 400 draws of five splits, the reference's mean accuracy is 0.976 (standard
deviation 0.005).  The difference of a tuned pipeline from it on the same splits has a mean of
-0.0025 and a standard deviation of 0.0037 for the solution (a standardised linear SVC, C = 0.3),
-0.0020 and 0.0032 for a standardised Gaussian SVC (C = 100, gamma = 0.001), +0.0011 and 0.0042
for standardised logistic regression (C = 0.3): the margin of 0.02 is 4.7 or more standard
deviations below them, and none came within 0.0048 of it.  Careless choices fall below it: an SVC
without scaling (difference -0.063, always), a decision tree (-0.050), nearest neighbours without
scaling (-0.047), a Gaussian SVC with gamma = 1 or C = 0.01 after scaling (-0.35, one class for
all).  A model without scaling whose C and gamma were tuned (-0.024) fails check 1 three times in
four, and check 4 always: on the changed units it agrees with its own labels on about 0.65 of the
points, a model that standardises on all of them (log or Yeo-Johnson transforms before scaling on
0.99 or more, trees on all).

Looking the labels up.  The data set ships with scikit-learn, so a fit_predict could load it and
return the label of the row that matches each test point.  No transformation of the features
that leaves honest methods unchanged can stop that (a lookup can standardise too), and the grader
does not mark whether code is the student's own.  The checks make the lookup visible instead: an
accuracy of 1 on all five splits of check 1 fails (the reference is perfect on about 2 % of
splits, so on all five about once in 10^8), and check 3 renames the classes, which a model learns
from y_train and a lookup does not see.  A lookup that works around both is plain in the code,
which the instructor reads with the justification.
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from assignments.checks import call, check, in_random_order, typename
from assignments.checks import finite as finite_array

ASSIGNMENT = "10_capstone"

FUNCTION = "fit_predict"
TEST_FRACTION = 0.3  # of each class, held out
SPLITS = 5  # for the accuracy of check 1
MARGIN = 0.02
REFERENCE = "StandardScaler + SVC(C=10, gamma=0.01)"
MIN_AGREEMENT = 0.9  # of a function's labels with its own, when only the names or order change
MIN_UNIT_AGREEMENT = 0.95  # when the features change units


def data():
    """The breast cancer set: X (569 x 30) and the labels 0 (malignant), 1 (benign)."""
    X, y = load_breast_cancer(return_X_y=True)
    return np.asarray(X, dtype=float), np.asarray(y, dtype=np.int64)


def reference_model():
    return make_pipeline(StandardScaler(), SVC(C=10.0, gamma=0.01))


def split(rng, y):
    """Indices (train, test) of a stratified split: TEST_FRACTION of each class held out, both
    parts in a random order."""
    train, test = [], []
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        k = round(TEST_FRACTION * len(members))
        test.append(members[:k])
        train.append(members[k:])
    return rng.permutation(np.concatenate(train)), rng.permutation(np.concatenate(test))


def describe(values):
    return " and ".join(str(v) for v in values)


def labels(outcome, m, classes, where):
    """The labels that ``outcome`` returned for m test points, after checking that they are a
    vector of m labels of the training set's (integer) type, each one of ``classes``."""
    out = outcome.result
    array = finite_array(
        out,
        FUNCTION,
        "labels",
        where,
        hint="return the labels that model.predict(X_test) gives",
    )
    raw = np.asarray(out)
    if raw.shape == (m, 2):
        raise AssertionError(
            f"{FUNCTION} returned an array of shape ({m}, 2) {where}: that is what predict_proba "
            f"gives, the probabilities of the two classes; return the labels, "
            f"model.predict(X_test), a vector of shape ({m},)"
        )
    if raw.shape == (m, 1) or raw.shape == (1, m):
        raise AssertionError(
            f"{FUNCTION} returned an array of shape {raw.shape} {where}: return a vector of "
            f"shape ({m},), one label per row of X_test (np.ravel it)"
        )
    if raw.shape != (m,):
        raise AssertionError(
            f"{FUNCTION} returned {typename(out)} of shape {raw.shape} for X_test of {m} rows "
            f"{where}: return a vector of shape ({m},), one label per row of X_test"
        )
    unknown = ~np.isin(array, classes)
    if unknown.any():
        values = np.unique(array)
        if set(values) <= {0.0, 1.0} and set(classes) != {0, 1}:
            raise AssertionError(
                f"{FUNCTION} returned the labels {describe(values.astype(int))}, but the "
                f"training labels are {describe(classes)} {where}: the labels are hard-coded to "
                "0 and 1; return model.predict(X_test), which gives the training labels, or map "
                "to classes = np.unique(y_train)"
            )
        if set(values) <= {-1.0, 1.0} and set(classes) != {-1, 1}:
            raise AssertionError(
                f"{FUNCTION} returned the labels {describe(values.astype(int))}, but the "
                f"training labels are {describe(classes)} {where}: the labels are hard-coded to "
                "-1 and +1 (the sign of the decision function); return model.predict(X_test), "
                "or map to classes = np.unique(y_train)"
            )
        if np.all((array >= 0) & (array <= 1)):
            raise AssertionError(
                f"{FUNCTION} returned {int(unknown.sum())} values out of {m} that are not labels "
                f"of the training set ({describe(classes)}) but numbers between 0 and 1 {where}: "
                "probabilities (predict_proba) are not labels; return model.predict(X_test)"
            )
        raise AssertionError(
            f"{FUNCTION} returned {int(unknown.sum())} values out of {m} that are not labels "
            f"of the training set ({describe(classes)}), such as {array[unknown][0]:.4g} "
            f"{where}: decision values f(x) (decision_function) are not labels; return "
            "model.predict(X_test), which gives the label of each point"
        )
    if raw.dtype.kind not in "iu":
        raise AssertionError(
            f"{FUNCTION} returned labels of type {raw.dtype} {where}, but the training labels "
            f"are integers ({describe(classes)}): return them with the labels' type, as "
            "model.predict(X_test) does"
        )
    return array.astype(np.int64)


def accuracy_case(X, y, train, test, k, store):
    """A case of check 1: the labels of split k, their accuracy stored in ``store[k]``."""
    classes = np.unique(y)
    where = f"(split {k + 1}: {len(train)} training points, {len(test)} held out)"

    def judge(outcome):
        store[k] = labels(outcome, len(test), classes, where)

    return call(X[train], y[train], X[test]), judge


def other_units(rng, X, y):
    """A factor for each feature, a power of ten: from 10^-1 to 10^1 at random, and for one of
    the ten features least correlated with the label, the power that makes its standard deviation
    about 10^6, so that a model which does not scale the features sees almost only that one."""
    factors = 10.0 ** rng.integers(-1, 2, size=X.shape[1])
    correlation = np.abs([np.corrcoef(column, y)[0, 1] for column in X.T])
    weak = int(rng.choice(np.argsort(correlation, kind="stable")[:10]))
    factors[weak] = 10.0 ** np.ceil(np.log10(1e6 / X[:, weak].std()))
    return factors


@check(1, "held-out accuracy over five fresh splits, against a tuned reference", FUNCTION)
def check_1(rng):
    X, y = data()
    splits = [split(rng, y) for _ in range(SPLITS)]
    predicted = [None] * SPLITS
    cases = [
        accuracy_case(X, y, train, test, k, predicted) for k, (train, test) in enumerate(splits)
    ]
    yield from in_random_order(rng, cases)
    accuracy = np.array(
        [np.mean(p == y[test]) for p, (_, test) in zip(predicted, splits, strict=True)]
    )
    reference = np.array(
        [
            np.mean(reference_model().fit(X[train], y[train]).predict(X[test]) == y[test])
            for train, test in splits
        ]
    )
    mean, bar = float(accuracy.mean()), float(reference.mean()) - MARGIN
    said = (
        f"mean held-out accuracy {mean:.3f} over {SPLITS} splits ({TEST_FRACTION:.0%} held out), "
        f"the reference {REFERENCE} {reference.mean():.3f} on the same splits; to pass, at "
        f"least {bar:.3f} (the reference's less {MARGIN})"
    )
    if np.all(accuracy == 1.0):
        raise AssertionError(
            f"{FUNCTION} labels every held-out point right on all {SPLITS} splits, which no "
            "method fitted on the training part does on this data set (the best reach about "
            "0.98): the labels must come from the model fitted on X_train and y_train, not from "
            "the data set looked up"
        )
    if mean >= bar:
        return
    if all(len(np.unique(p)) == 1 for p in predicted):
        raise AssertionError(
            f"{FUNCTION} predicts one class for every held-out point: {said}. The model has "
            "learnt nothing: a Gaussian kernel with gamma far too large (every point far from "
            "all others) or C far too small gives the majority class everywhere; tune C and "
            "gamma by cross-validation on standardised features"
        )
    # Does the model depend on the units of the features?  Ask split 1 again in other units.
    train, test = splits[0]
    factors = other_units(rng, X, y)
    outcome = yield call(X[train] * factors, y[train], X[test] * factors)
    where = "(split 1, each feature multiplied by a power of ten)"
    rescaled = labels(outcome, len(test), np.unique(y), where)
    changed = int(np.sum(rescaled != predicted[0]))
    if changed > (1 - MIN_UNIT_AGREEMENT) * len(test):
        unscaled = np.mean(
            [np.mean(SVC().fit(X[tr], y[tr]).predict(X[te]) == y[te]) for tr, te in splits]
        )
        raise AssertionError(
            f"{said}. Your labels depend on the units of the features: with each feature "
            f"multiplied by a power of ten, {changed} of the {len(test)} labels of split 1 "
            f"change. The features range from about 0.001 to 4000, so without scaling the "
            f"largest decide the distances (an SVC without scaling reaches {unscaled:.3f} on "
            "these splits): standardize the features, fitting the scaler on the training set "
            "only (make_pipeline(StandardScaler(), ...))"
        )
    raise AssertionError(
        f"{said}. Compare methods and tune their parameters (C, gamma) by cross-validation on "
        "standardised features, then fix the best ones in fit_predict"
    )


def piece_case(X_train, y_train, X_test, rows, store, key, classes, what):
    """A case of check 2: the labels of the rows ``rows`` of X_test, passed as ``what``."""

    def judge(outcome):
        store[key] = labels(outcome, len(rows), classes, f"(X_test {what})")

    return call(X_train, y_train, X_test[rows]), judge


@check(2, "the label of a test point does not depend on the other test points", FUNCTION)
def check_2(rng):
    X, y = data()
    train, test = split(rng, y)
    X_train, y_train, X_test = X[train], y[train], X[test]
    classes = np.unique(y)
    m = len(test)
    # The halves: the points that the reference puts on either side of its boundary, which
    # differ most in their statistics; the single points: those nearest to it, which a change of
    # the scaling moves across first.
    f = reference_model().fit(X_train, y_train).decision_function(X_test)
    order = np.argsort(f, kind="stable")
    lower, upper = np.sort(order[: m // 2]), np.sort(order[m // 2 :])
    nearest = np.argsort(np.abs(f), kind="stable")[:4]
    # And X_test with one more point, 1000 standard deviations away in every feature: a scaler
    # fitted on X_test, or on X_train and X_test together, then shrinks every feature some forty
    # times, and the labels of the other points move.
    far = X_train.mean(axis=0) + 1000.0 * X_train.std(axis=0)
    everything = np.arange(m)
    got = {}
    pieces = [
        ("whole", everything, "as a whole"),
        ("again", everything, "as a whole, a second time"),
        ("lower", lower, f"in halves: the {len(lower)} points of its first half"),
        ("upper", upper, f"in halves: the {len(upper)} points of its second half"),
    ] + [(("one", int(i)), np.array([i]), "as one point") for i in nearest]
    cases = [
        piece_case(X_train, y_train, X_test, rows, got, key, classes, what)
        for key, rows, what in pieces
    ]

    def with_far_point(outcome):
        got["far"] = labels(outcome, m + 1, classes, "(X_test with one point far away)")[:m]

    cases.append((call(X_train, y_train, np.vstack([X_test, far])), with_far_point))
    yield from in_random_order(rng, cases)
    whole = got["whole"]
    differ = int(np.sum(got["again"] != whole))
    if differ:
        raise AssertionError(
            f"{FUNCTION} gave {differ} of {m} test points another label when called a second "
            "time on the same data: it is not deterministic. Fix the random_state of every "
            "randomised step (random_state=0), so that the same data always give the same "
            "labels"
        )
    halves = np.empty(m, dtype=np.int64)
    halves[lower], halves[upper] = got["lower"], got["upper"]
    differ_halves = int(np.sum(halves != whole))
    differ_single = sum(int(got["one", int(i)][0] != whole[i]) for i in nearest)
    differ_far = int(np.sum(got["far"] != whole))
    if differ_halves or differ_single or differ_far:
        raise AssertionError(
            f"the label of a test point depends on the other test points: with X_test passed "
            f"in two halves, {differ_halves} of its {m} points get another label than with "
            f"X_test passed whole, {differ_single} of {len(nearest)} points passed one at a "
            f"time, and {differ_far} when one more point, far from all others, is added to "
            "X_test. Something is fitted on X_test: fit every step (the scaler first of all) on "
            "X_train only, then apply it to X_test; a scaler fitted on X_test, or on X_train and "
            "X_test together, leaks the test set into the model"
        )


@check(3, "the contract: labels of the training set, any names, any order, inputs kept", FUNCTION)
def check_3(rng):
    X, y = data()
    train, test = split(rng, y)
    X_train, y_train, X_test = X[train], y[train], X[test]
    m = len(test)
    got = {}

    def named(key, names, order, what):
        """The labels with class 0 called names[0] and class 1 names[1], training points in
        ``order``; the judge maps the answer back to 0 and 1."""
        names = np.asarray(names, dtype=np.int64)
        classes = np.sort(names)

        def judge(outcome):
            answer = labels(outcome, m, classes, f"({what})")
            got[key] = (answer == names[1]).astype(np.int64), what

        return call(X_train[order], names[y_train[order]], X_test), judge

    keep = np.arange(len(train))
    by_label = np.argsort(-y_train, kind="stable")  # the benign (label 1) points first
    cases = [
        named("base", [0, 1], keep, "labels 0 (malignant) and 1 (benign), as in the data set"),
        named("pm", [1, -1], keep, "labels +1 (malignant) and -1 (benign), as in the book"),
        named("swapped", [1, 0], keep, "the names swapped: 1 (malignant) and 0 (benign)"),
        named("other", [7, 3], keep, "labels 7 (malignant) and 3 (benign)"),
        named("sorted", [0, 1], by_label, "training points sorted by label, benign ones first"),
    ]
    row = int(rng.integers(m))

    def single(outcome):
        labels(outcome, 1, np.array([0, 1]), "(X_test of a single row)")

    cases.append((call(X_train, y_train, X_test[row : row + 1]), single))
    yield from in_random_order(rng, cases)
    base = got["base"][0]
    for key in ("pm", "swapped", "other", "sorted"):
        answer, what = got[key]
        agree = int(np.sum(answer == base))
        if not (agree >= MIN_AGREEMENT * m):
            raise AssertionError(
                f"with {what}, your labels (mapped back to the data set's names) agree with "
                f"those for the data set's own labels on only {agree} of {m} test points: "
                f"{FUNCTION} must learn the labels from y_train, whatever they are called and "
                "in whatever order the training points come (it must not look them up in the "
                "data set, nor assume which label is which)"
            )


@check(4, "the labels do not depend on the units of the features", FUNCTION)
def check_4(rng):
    X, y = data()
    train, test = split(rng, y)
    m, classes = len(test), np.unique(y)
    got = {}
    units = {"given": np.ones(X.shape[1])}
    units.update({f"other {k}": other_units(rng, X, y) for k in (1, 2)})
    cases = []
    for key, factors in units.items():

        def judge(outcome, key=key):
            got[key] = labels(outcome, m, classes, f"(features in {key} units)")

        cases.append((call(X[train] * factors, y[train], X[test] * factors), judge))
    yield from in_random_order(rng, cases)
    for key in ("other 1", "other 2"):
        agree = int(np.sum(got[key] == got["given"]))
        if not (agree >= MIN_UNIT_AGREEMENT * m):
            powers = np.round(np.log10(units[key])).astype(int)
            raise AssertionError(
                f"your labels depend on the units of the features: with feature l multiplied "
                f"by 10^k_l (k = {' '.join(str(p) for p in powers[:8])} ...), only {agree} of "
                f"{m} test labels stay the same. A change of units (mm to cm, mm^2 to cm^2) "
                "must not change a diagnosis: standardize the features, fitting the scaler on "
                "the training set only (make_pipeline(StandardScaler(), ...))"
            )


CHECKS = [check_1, check_2, check_3, check_4]
