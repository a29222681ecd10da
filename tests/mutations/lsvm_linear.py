"""Wrong solutions of assignment 02_lsvm_linear, each with the diagnostic its check must give."""

MUTATIONS = [
    (
        "task",
        "float(y_alpha.sum())",
        "float(-y_alpha.sum())",  # the paper's gamma = -e'Du, which is -b
        "check-1",
        "b has the wrong sign",
    ),
    ("task", "eta = 1.9 / nu", "eta = 1.0 / nu", "check-2", "the step eta = 1.9 / nu"),
    (
        "task",
        "while n_iter < max_iter:",
        "while n_iter <= max_iter:",
        "check-2",
        "stop after max_iter iterations, and count every computed alpha^(t+1)",
    ),
    (
        "task",
        "H = y[:, None] * np.hstack([X, ones[:, None]])",
        "H = np.diag(y) @ np.hstack([X, ones[:, None]])",
        "check-3",
        "it forms an n x n matrix",
    ),
]
