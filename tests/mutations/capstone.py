"""Wrong solutions of assignment 10_capstone, each with the diagnostic its check must give."""

CHOSEN = 'make_pipeline(StandardScaler(), SVC(kernel="linear", C=0.3))'
FIT = "    return model.fit(X_train, y_train).predict(X_test)"

MUTATIONS = [
    # No scaling, with the defaults: the largest features decide the distances (0.91).
    ("task", CHOSEN, "SVC()", "check-1", "an SVC without scaling reaches"),
    # No scaling, C and gamma tuned on the raw features (0.95): the units decide the labels.
    ("task", CHOSEN, "SVC(C=1000)", "check-4", "A change of units"),
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
    # The scaler fitted on the training and test points together.
    (
        "task",
        FIT,
        "    scaler = StandardScaler().fit(np.vstack([X_train, X_test]))\n"
        "    svc = SVC(kernel='linear', C=0.3).fit(scaler.transform(X_train), y_train)\n"
        "    return svc.predict(scaler.transform(X_test))",
        "check-2",
        "the label of a test point depends on the other test points",
    ),
    # Decision values f(x) instead of labels.
    ("task", ".predict(X_test)", ".decision_function(X_test)", "check-3", "are not labels"),
    # Probabilities instead of labels.
    (
        "task",
        FIT,
        "    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.3))\n"
        "    return model.fit(X_train, y_train).predict_proba(X_test)",
        "check-3",
        "that is what predict_proba gives",
    ),
    # Labels hard-coded to 0 and 1.
    (
        "task",
        FIT,
        "    return (model.fit(X_train, y_train).decision_function(X_test) > 0).astype(int)",
        "check-3",
        "the labels are hard-coded to 0 and 1",
    ),
    # C far too small: one class for every point.
    (
        "task",
        CHOSEN,
        "make_pipeline(StandardScaler(), SVC(C=0.01))",
        "check-1",
        "predicts one class",
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
