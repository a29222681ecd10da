"""Wrong solutions of assignment 05_smo, each with the diagnostic its check must give."""

MUTATIONS = [
    (
        "task-step",
        "    if y[i] != y[j]:\n        L, H",
        "    if y[i] == y[j]:\n        L, H",  # the box [L, H] of alpha_j of the other case
        "check-1",
        "uses the bounds L, H of the case",
    ),
    (
        "task-step",
        "    g += eta * y * (K[:, i] - K[:, j])\n",
        "",  # the gradient not updated after the step
        "check-1",
        "returns g unchanged",
    ),
    (
        "task-step",
        "    g += eta * y * (K[:, i] - K[:, j])\n",
        "    g -= eta * y * (K[:, i] - K[:, j])\n",
        "check-1",
        "updates g with the wrong sign",
    ),
    (
        "task-step",
        "    if curvature <= 0:  # two equal points, or a rounding error below 0\n"
        "        curvature = TAU\n",
        "",  # a curvature <= 0 divides the slope
        "check-1",
        "replace a curvature <= 0 by tau",
    ),
    (
        "task-step",
        "        if abs(value) <= 1e-12 * C:\n"
        "            value = 0.0\n"
        "        elif abs(value - C) <= 1e-12 * C:\n"
        "            value = C\n",
        "",  # alpha_i, computed through alpha_j, left a rounding error off its bound
        "check-4",
        "is a rounding error off a bound",
    ),
    (
        "task-pair",
        "    up = np.where(y > 0, alpha < C, alpha > 0)\n"
        "    low = np.where(y > 0, alpha > 0, alpha < C)",
        "    up = np.where(y > 0, alpha > 0, alpha < C)\n"  # I_up and I_low swapped
        "    low = np.where(y > 0, alpha < C, alpha > 0)",
        "check-2",
        "is not in I_up",
    ),
    (
        "task-smo",
        "b = float(np.mean(F[free]))",
        "b = float(np.mean(y[free] * g[free]))",  # b = y_j g_j
        "check-3",
        "b has the wrong sign",
    ),
]
