"""Wrong solutions of assignment 08_lsvm_kernel, each with the diagnostic its check must give."""

MUTATIONS = [
    (
        "task-1",
        "np.maximum((M @ alpha - 1.0) - eta * alpha, 0.0)",
        "np.maximum(M @ alpha - 1.0, 0.0) - eta * alpha",  # the plus part of M alpha - 1 alone
        "check-1",
        "you apply the plus function to M alpha - 1 alone",
    ),
    (
        "task-2",
        "y[:, None] * (K + 1.0) * y[None, :]",
        "y[:, None] * K * y[None, :]",  # M = I/nu + YKY: no offset
        "check-2",
        "your alpha is that of M = I/nu + YKY, without the 11'",
    ),
    (
        "task-2",
        "float(y @ alpha)",
        "float(-(y @ alpha))",  # the paper's gamma = -e'Du, which is -b
        "check-2",
        "b has the wrong sign",
    ),
    (
        "task-2",
        "while n_iter < max_iter:",
        "while n_iter <= max_iter:",
        "check-3",
        "stop after max_iter iterations, and count every computed alpha^(t+1)",
    ),
    (
        "task-2",
        "eta = 1.9 / nu if eta is None else eta",
        "eta = 1.0 / nu if eta is None else eta",
        "check-3",
        "the default step is eta = 1.9/nu",
    ),
    (
        "task-2",
        "if not (0.0 < eta < 2.0 / nu):",
        "if not (0.0 < eta <= 2.0 / nu):",
        "check-3",
        "the interval is open, 0 < eta < 2/nu",
    ),
    (
        "task-3",
        "free = (M @ alpha - 1.0) < alpha",
        "free = alpha > 0",  # the support of alpha, not the split of min(alpha, M alpha - 1)
        "check-4",
        "your free set is {i : alpha_i > 0}",
    ),
]
