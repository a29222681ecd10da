"""Wrong solutions of assignment 07_klr_newton, each with the diagnostic its check must give."""

# Penalising the bias changes three lines of the task cell, so its mistake replaces the stretch
# from J to the border of the system: lam/2 b^2 in J, lam b in dJ/db, and the corner -1 of the
# system, whose last row then says b+ = 1'c+.
_BIAS_OLD = (
    "        return np.logaddexp(0.0, -y * (K @ c + b)).sum() + lam / 2 * c @ K @ c\n"
    "\n"
    "    c, b, n_iter = np.zeros(n), 0.0, 0\n"
    "    while True:\n"
    "        f = K @ c + b\n"
    "        s = y * f\n"
    "        sigma_minus = np.exp(-np.logaddexp(0.0, s))  # sigma(-s)\n"
    "        weight = sigma_minus * np.exp(-np.logaddexp(0.0, -s))"
    "  # sigma'(s) = sigma(s) sigma(-s)\n"
    "        residual = y * sigma_minus  # Y sigma(-s)\n"
    "        grad_c = K @ (lam * c - residual)  # (rr-eq-rlr-grad)\n"
    "        grad_b = -residual.sum()\n"
    "        # The Newton step: (c+, b+) solves the weighted RLSC system (rr-eq-irls).\n"
    "        A = np.zeros((n + 1, n + 1))\n"
    "        A[:n, :n] = K + np.diag(lam / weight)\n"
    "        A[:n, n] = A[n, :n] = 1.0\n"
)
_BIAS_NEW = (
    _BIAS_OLD.replace("+ lam / 2 * c @ K @ c", "+ lam / 2 * (c @ K @ c + b * b)")
    .replace("grad_b = -residual.sum()", "grad_b = -residual.sum() + lam * b")
    .replace(
        "        A[:n, n] = A[n, :n] = 1.0\n",
        "        A[:n, n] = A[n, :n] = 1.0\n        A[n, n] = -1.0  # then b+ = 1'c+\n",
    )
)

MUTATIONS = [
    (
        "task",
        "weight = sigma_minus * np.exp(-np.logaddexp(0.0, -s))",
        "weight = sigma_minus",  # p in place of p(1 - p)
        "check-2",
        "the probabilities sigma(-s) = p, not p(1 - p)",
    ),
    (
        "task",
        "    n = len(y)\n",
        "    n = len(y)\n    lam = 2 * lam  # the penalty lam c'Kc of the family (rr-eq-family)\n",
        "check-1",
        "you minimised J with lam c'Kc",
    ),
    (
        "task",
        "    n = len(y)\n",
        "    n = len(y)\n    lam = lam / n  # a mean loss in place of the sum\n",
        "check-3",
        "you divided lam by n",
    ),
    (
        "task",
        "if decrement / 2 <= tol or n_iter == max_iter:",
        "if max(np.abs(grad_c).max(), abs(grad_b)) <= tol or n_iter == max_iter:",
        "check-2",
        "your stopping rule cannot be met in floating point",
    ),
    (
        "task",
        "f + residual / weight",
        "f - residual / weight",  # the gradient's sign flipped in the working responses
        "check-1",
        "your steps do not go downhill",
    ),
    (
        "task",
        "residual = y * sigma_minus  # Y sigma(-s)",
        "residual = y - np.exp(-np.logaddexp(0.0, -f))  # y - sigma(f), for labels in {0, 1}",
        "check-1",
        "Formulas written for labels t in {0, 1}",
    ),
    (
        "task",
        "        A = np.zeros((n + 1, n + 1))\n"
        "        A[:n, :n] = K + np.diag(lam / weight)\n"
        "        A[:n, n] = A[n, :n] = 1.0\n"
        "        new = np.linalg.solve(A, np.append(f + residual / weight, 0.0))\n"
        "        dc, db = new[:n] - c, new[n] - b\n",
        "        B = np.hstack([K, np.ones((n, 1))])  # the Hessian, singular with K\n"
        "        H = B.T @ (weight[:, None] * B)\n"
        "        H[:n, :n] += lam * K\n"
        "        step = np.linalg.solve(H, -np.append(grad_c, grad_b))\n"
        "        dc, db = step[:n], step[n]\n",
        "check-3",
        "do not solve with either",
    ),
    ("task", _BIAS_OLD, _BIAS_NEW, "check-1", "you penalised the bias"),
]
