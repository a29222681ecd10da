"""The Lagrangian SVM (LSVM) of Mangasarian & Musicant (2001).

LSVM solves a slightly different SVM from the lecture's soft margin, their
formulation (7): squared slacks and the offset inside the objective,

.. math::

    \\min_{w, b, \\xi}\\ \\frac{\\nu}{2}\\|\\xi\\|^2 + \\frac12 (w'w + b^2)
    \\quad\\text{s.t.}\\quad Y(Xw + \\mathbf{1}b) + \\xi \\ge \\mathbf{1} ,

with the ``n`` training points in ``d`` dimensions as the rows of ``X``, the labels
``y`` on the diagonal of ``Y`` and the separating plane ``w'x + b = 0``.  Its dual
(11) has only the bound ``u >= 0`` on the multipliers ``u`` (the book's ``alpha``):

.. math::

    \\min_{u \\ge 0}\\ \\tfrac12 u'Mu - \\mathbf{1}'u, \\qquad
    M = \\frac{I}{\\nu} + HH', \\quad H = Y[X\\ \\ \\mathbf{1}],

and the KKT conditions ``0 <= u  perp  Mu - 1 >= 0`` (12) are a fixed point of
``u = M^{-1}(1 + ((Mu - 1) - eta u)_+)`` (15), which converges linearly for
``0 < eta < 2 / nu`` (their Algorithm 1).  The primal solution is
``w = X'Yu``, ``b = 1'Yu``, ``xi = u / nu`` (9); the plane is ``w'x + b = 0``.

The letters are the book's.  The equation and code numbers are the paper's, whose
letters map to the book's as: their data ``A`` (``m`` points in ``n`` dimensions)
is ``X`` (``n`` points in ``d`` dimensions), the diagonal matrix of labels ``D`` is
``Y``, the ones ``e`` are ``1``, the dual's matrix ``Q`` is ``M``, their augmented
points ``G = [A  -e]`` are ``[X  1]`` (:func:`augment`), their offset ``gamma`` is
``-b`` (their plane is ``x'w = gamma``), their slacks ``y`` are ``xi``, their step
``alpha`` is ``eta``; their multipliers ``u`` keep the name ``u`` in the code (the
book's ``alpha``).

Two implementations:

* :func:`lsvm_linear` follows their Code 2: ``M^{-1}`` by the
  Sherman-Morrison-Woodbury identity, so only a ``(d+1) x (d+1)`` system is
  factored and no ``n x n`` object is ever formed.  ``H`` is not formed either:
  products with it are products with ``X``.  Since ``u^{i+1} = M^{-1} z^i``
  gives ``M u^{i+1} = z^i`` exactly, each iteration needs one application of
  ``M^{-1}``, that is one product with ``X'`` and one with ``X``;
* :func:`lsvm_kernel` follows their Code 3: ``M = I/nu + Y K-tilde Y`` with
  ``K-tilde`` the Gram matrix of the augmented points ``[x_i  1]``, factored once
  by Cholesky (``n x n``: moderate ``n`` only).

Beyond the paper, :func:`lsvm_linear_newton` and :func:`lsvm_kernel_newton`
solve the same dual exactly by a primal-dual active-set method, which is
Newton's method for the piecewise-linear KKT equation ``min(u, Mu - 1) = 0``:
each step solves ``M_FF u_F = 1_F`` on a guessed free set, and the number of
steps stays small however large ``nu`` is (for the linear kernel a step is
one pass over ``X``, with ``H_F'H_F`` updated by the rows that change side).
Newton's free-set updates can cycle; Judice & Pires' safeguard (Murty's
single pivots when the count of wrong signs stops falling) makes the number
of steps finite.

References
----------
Mangasarian, O. L. and Musicant, D. R. (2001), Lagrangian Support Vector
Machines, JMLR 1, 161-177, sections 3 and 4.

Hintermueller, M., Ito, K. and Kunisch, K. (2002), The primal-dual active set
strategy as a semismooth Newton method, SIAM J. Optim. 13(3), 865-888.

Judice, J. J. and Pires, F. M. (1994), A block principal pivoting algorithm for
large-scale strictly monotone linear complementarity problems, Computers &
Operations Research 21(5), 587-596.

Beck, A. (2017), First-Order Methods in Optimization, SIAM, section 10.7.7
(V-FISTA, Theorem 10.42).
Mangasarian, O. L. and Musicant, D. R. (1999), Successive overrelaxation for
support vector machines, IEEE Transactions on Neural Networks 10(5), 1032-1037.
Hsieh, C.-J., Chang, K.-W., Lin, C.-J., Keerthi, S. S. and Sundararajan, S. (2008),
A dual coordinate descent method for large-scale linear SVM, ICML 2008, 408-415.

Modules
-------
problem
    What the solvers share: the augmented points ``[X  1]``, the dual's matrix ``M``,
    the checks of their arguments, :class:`LSVMResult`.
fixed_point
    The fixed-point iteration (15): Code 2 with Sherman-Morrison-Woodbury, Code 3.
newton
    The active-set Newton method: the pivoting, its linear and Gram-matrix solvers.
block
    The Cholesky factor of the free set, updated from one step to the next.
coordinate
    The kernel LSVM by greedy over-relaxed coordinate steps from kernel rows on demand
    (the estimator's solver at small ``nu``), its steps compiled in ``_coordinate_compiled``.
working_set
    The kernel LSVM by working sets from kernel rows on demand, its warm start and
    the memory its workspaces pass on from one level (and one fit) to the next.
estimator
    :class:`LagrangianSVC`.
dask
    The linear LSVM on a Dask array chunked by rows (Code 2 and the Newton method,
    block by block; the estimator's Dask path); imported only when a Dask array is
    met, and under its public name as :mod:`ksvm.lsvm_dask`.
dask_blocks
    A Dask array read block by block: its checks, a map with sums reduced on the cluster.
dask_data
    The data sets as Dask arrays chunked by rows (each chunk drawn on its own, on a
    worker) and their storage in Zarr; imported on its own, like dask.
"""

from ..linalg import smw_factor, smw_solve
from .coordinate import lsvm_kernel_coordinate
from .estimator import LagrangianSVC
from .fixed_point import lsvm_kernel, lsvm_linear
from .newton import active_set, lsvm_kernel_newton, lsvm_linear_newton
from .problem import LSVMResult, augment, dual_matrix
from .working_set import KeptMemory, lsvm_kernel_columns

__all__ = [
    "KeptMemory",
    "LSVMResult",
    "LagrangianSVC",
    "active_set",
    "augment",
    "dual_matrix",
    "lsvm_kernel",
    "lsvm_kernel_columns",
    "lsvm_kernel_coordinate",
    "lsvm_kernel_newton",
    "lsvm_linear",
    "lsvm_linear_newton",
    "smw_factor",
    "smw_solve",
]
