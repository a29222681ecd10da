"""Wrong solutions of assignment 10_capstone, each with the diagnostic its check must give.

Each of these runs the notebook's cross-validation in the grader, which takes seconds; so this
list keeps seven of the mistakes that the checks name (a scaler fitted on the training and test
points together, probabilities returned, and a C so small that one class is predicted are named
too, and were each diagnosed in every draw when the checks were written).
"""

CHOSEN = 'make_pipeline(StandardScaler(), SVC(kernel="linear", C=0.3))'
FIT = "    return model.fit(X_train, y_train).predict(X_test)"

MUTATIONS = [
    # No scaling, with the defaults: the largest features decide the distances (0.91).
    ("task", CHOSEN, "SVC()", "check-1", "an SVC without scaling reaches"),
    # The scaler fitted on the test set: a point's label depends on the other test points.
    (
        "task",
        FIT,
        "    scaler = StandardScaler().fit(X_test)\n"
        "    train = StandardScaler().fit_transform(X_train)\n"
        "    svc = SVC(kernel='linear', C=0.3).fit(train, y_train)\n"
        "    return svc.predict(scaler.transform(X_test))",
        "check-2",
        "a scaler fitted on X_test, or on X_train and X_test together",
    ),
    # The labels looked up in the data set instead of learnt.
    (
        "task",
        FIT,
        "    from sklearn.datasets import load_breast_cancer\n"
        "    X_all, y_all = load_breast_cancer(return_X_y=True)\n"
        "    rows = [int(np.argmin(np.abs(X_all - x).sum(axis=1))) for x in X_test]\n"
        "    return y_all[rows]",
        "check-1",
        "not from the data set looked up",
    ),
    # No scaling, C and gamma tuned on the raw features (0.95): the units decide the labels.
    ("task", CHOSEN, "SVC(C=1000)", "check-4", "A change of units"),
    # Decision values f(x) instead of labels.
    ("task", ".predict(X_test)", ".decision_function(X_test)", "check-3", "are not labels"),
    # Labels hard-coded to 0 and 1.
    (
        "task",
        FIT,
        "    return (model.fit(X_train, y_train).decision_function(X_test) > 0).astype(int)",
        "check-3",
        "the labels are hard-coded to 0 and 1",
    ),
    # A randomised model without a fixed random_state: labels that change from call to call.
    (
        "task",
        FIT,
        "    from sklearn.ensemble import RandomForestClassifier\n"
        "    model = RandomForestClassifier(n_estimators=10)\n" + FIT,
        "check-2",
        "it is not deterministic",
    ),
]
