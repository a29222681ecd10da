"""Wrong solutions of assignment 07_klr_newton, each with the diagnostic its check must give."""

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
        "raised LinAlgError",
    ),
]
