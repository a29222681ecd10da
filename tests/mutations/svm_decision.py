"""Wrong solutions of assignment 06_svm_decision, each with the diagnostic its check must give."""

MUTATIONS = [
    (
        "task-bias",
        "F = y - K @ (alpha * y)",
        "F = K @ (alpha * y) - y",  # libsvm's rho = -b: y_j g_j in place of -y_j g_j
        "check-1",
        "b has the wrong sign",
    ),
    (
        "task-bias",
        "free = ~at_zero & ~at_C",
        "free = ~at_zero",  # every support vector in the mean, the bounded ones too
        "check-1",
        "only the free ones (0 < alpha_j < C) lie on their margin line",
    ),
    (
        "task-bias",
        "at_zero, at_C = alpha <= tol, alpha >= C - tol",
        "at_zero, at_C = alpha <= 0, alpha >= C",  # no tolerance at the bounds
        "check-1",
        "you counted those within tol of 0 or C as free",
    ),
    (
        "task-bias",
        "    if np.any(free):\n        return float(np.mean(F[free]))",
        "    return float(np.mean(F[free]))",  # no fallback: the mean of nothing is NaN
        "check-2",
        "with no free multiplier there is no j to average over",
    ),
    (
        "task-bias",
        "low = np.where(y > 0, ~at_zero, ~at_C)",
        "low = np.where(y > 0, ~at_zero, ~at_C) & ~at_zero\n    up &= ~at_zero",
        "check-2",
        "your interval of b uses the support vectors only",
    ),
    (
        "task-decision",
        "return K_test_train @ (alpha * y) + b",
        "return K_test_train.T @ (alpha * y) + b",
        "check-3",
        "you used the transpose of K_test_train",
    ),
    (
        "task-support",
        "return support, alpha[support] * y[support]",
        "return support, alpha[support]",  # alpha_i where dual_coef_ holds alpha_i y_i
        "check-4",
        "coef holds alpha_i y_i, the coefficient c_i of k(x_i, x) in f, as libsvm's",
    ),
    (
        "task-predict",
        "return f, np.where(f > 0, 1, -1)",
        "return f, np.sign(f)",  # 0 where f(x) = 0
        "check-5",
        "at a point with f(x) = 0 exactly you predicted 0",
    ),
]
