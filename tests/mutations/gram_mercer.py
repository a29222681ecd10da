"""Wrong solutions of assignment 01_gram_mercer, each with the diagnostic its check must give."""

MUTATIONS = [
    (
        "task-gaussian",
        "return np.exp(-gamma * np.maximum(sq, 0.0))",
        "return np.exp(-gamma * np.maximum(sq, 0.0)).T",
        "check-1",
        "you returned the transpose",
    ),
    (
        "task-poly",
        "return (X @ Y.T + c) ** degree",
        "return (X @ Y.T) ** degree + c",
        "check-2",
        "c goes inside the power",
    ),
    (
        "task-poly",
        "return (X @ Y.T + c) ** degree",
        "return np.exp(degree * np.log(X @ Y.T + c))",
        "check-2",
        "polynomial_gram returned G with",
    ),  # NaN where x'y + c < 0
    (
        "task-mercer",
        "    if np.abs(K - K.T).max() > bound:\n        return False\n",
        "",
        "check-3",
        "test the symmetry first",
    ),
]
