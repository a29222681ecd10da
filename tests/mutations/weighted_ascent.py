"""Wrong solutions of assignment 09_weighted_ascent, each with the diagnostic its check gives."""

MUTATIONS = [
    (
        "task-1",
        "delta = -eta * (rho1 * g[i] + (1.0 - rho1) * g[j])",
        "delta = -eta * ((1.0 - rho1) * g[i] + rho1 * g[j])",
        "check-1",
        "rho_1 and 1 - rho_1 are swapped",
    ),
    (
        "task-1",
        "    delta = max(delta, -min(alpha[i], alpha[j]))  # the clip: alpha stays >= 0\n",
        "",
        "check-1",
        "the step is not clipped",
    ),
    (
        "task-1",
        "    delta = max(delta, -min(alpha[i], alpha[j]))  # the clip: alpha stays >= 0\n"
        "    alpha[i] += delta\n"
        "    alpha[j] += delta\n"
        "    return alpha\n",
        "    alpha[i] += delta\n    alpha[j] += delta\n    return np.maximum(alpha, 0.0)\n",
        "check-1",
        "you clipped each multiplier at 0 on its own",
    ),
    (
        "task-1",
        "g = y * (K @ (alpha * y)) - 1.0",
        "g = 1.0 - y * (K @ (alpha * y))",  # the paper's gradient of Q with the book's -eta
        "check-1",
        "the gradient has the wrong sign",
    ),
    (
        "task-2",
        "alpha = pair_step(K, y, alpha, pos[p], neg[q], eta, rho1)",
        "alpha = pair_step(K, y, alpha, p, q, eta, rho1)",  # row and column, not the examples
        "check-2",
        "map its row p and column q back to the examples",
    ),
    (
        "task-2",
        "drop = -(delta * s + 0.5 * delta**2 * dist2)",
        "drop = -(delta * s)",
        "check-2",
        "you chose the pair by the first-order term",
    ),
    (
        "task-2",
        "while n_iter < max_iter:",
        "while n_iter <= max_iter:",
        "check-2",
        "make at most max_iter steps, and count each step made",
    ),
    (
        "task-2",
        "if drop[p, q] < tol:",
        "if drop[p, q] < 0:",
        "check-3",
        "the stopping rule is never met",
    ),
    (
        "task-2",
        "if drop[p, q] < tol:",
        "if abs(delta[p, q]) < tol:",
        "check-3",
        "the stopping rule is tested on the wrong quantity",
    ),
    (
        "task-2",
        "        alpha = pair_step(K, y, alpha, pos[p], neg[q], eta, rho1)\n"
        "        n_iter += 1\n"
        "        if drop[p, q] < tol:\n"
        "            break  # a small change\n",
        "        if drop[p, q] < tol:\n"
        "            break  # a small change\n"
        "        alpha = pair_step(K, y, alpha, pos[p], neg[q], eta, rho1)\n"
        "        n_iter += 1\n",
        "check-3",
        "one before ksvm.ascent.weighted_ascent",
    ),
]
