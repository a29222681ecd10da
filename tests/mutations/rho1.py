"""Wrong solutions of assignment 04_rho1, each with the diagnostic its check must give."""

MUTATIONS = [
    (
        "task",
        "return float(a2 * v1 / denominator)",
        "return float(a1 * v2 / denominator)",
        "check-1",
        "= 1 - rho_1",
    ),
    (
        "task",
        "(m**2 * (m - 1))",
        "(m**2 * m)",
        "check-1",
        "you divided the covariance by m instead of m - 1",
    ),
    (
        "task",
        "    if a1 == 0 < a2:\n        return 1.0\n",
        "",
        "check-3",
        "when the positive class has mean 0",
    ),
    (
        "task",
        "    if denominator > 0:\n        return float(a2 * v1 / denominator)\n",
        "    return float(a2 * v1 / denominator)\n",
        "check-3",
        "rho1 returned rho_1 = nan",
    ),  # 0 / 0
]
