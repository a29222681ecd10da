"""Wrong solutions of assignment 03_rlsc_bordered, each with the diagnostic its check must give."""

MUTATIONS = [
    (
        "task-system",
        "    A = np.zeros((n + 1, n + 1))\n",
        "    return K + lam * np.eye(n), np.asarray(y, dtype=float)\n",
        "check-1",
        "you returned K + lam*I without the border row",
    ),
    (
        "task-system",
        "    A[:n, :n] = K + lam * np.eye(n)\n",
        "    A[:n, :n] = K\n    A += lam * np.eye(n + 1)\n",
        "check-1",
        "the corner entry A[n, n] must be 0",
    ),
    (
        "task-solve",
        "return solution[:-1], float(solution[-1])",
        "return solution, float(solution[-1])",
        "check-2",
        "c has n + 1",
    ),
]
