"""ksvm: the kernel SVM methods of the book, implemented and tested.

Modules
-------
kernels
    Standard kernels, the one protocol every kernel follows (k(A, B, out), the fast
    Gaussian block among them), the rule for block sizes, and the registry of kernel
    names the estimators take.
kernel_rules
    The lecture's four rules that build new kernels from kernels.
polynomial_map
    The explicit feature map of the polynomial kernel, and its length.
columns
    Rows of a Gram matrix computed on demand, in blocks, with a cache of bounded size
    (libsvm's cache_size): the solvers that never need the whole m x m matrix.
mercer
    Mercer's condition checked on a Gram matrix; the PSD tests the solvers use.
linalg
    The linear algebra the solvers share: the Cholesky factor that names the kernel when it
    fails, and the Sherman-Morrison-Woodbury solve of the linear LSVM.
datasets
    Seeded generators and the bundled real sets, labels in {-1, +1}; their Dask and
    Zarr forms are ksvm.lsvm.dask_data (imported on its own: it needs Dask).
base
    The contract every estimator keeps (fitted attributes, decision function, one table
    of hyper-parameters validated before any work).
nearest_mean
    The classifier by the nearer class mean in the feature space, KernelMeanClassifier:
    the smallest estimator on the contract of base.
smo
    SMO for the soft-margin SVM dual, and the estimator SoftMarginSVC.
primal
    The primal QP and the hinge form, solved directly (small problems); separability by LP.
lsvm
    The Lagrangian SVM of Mangasarian & Musicant, a package of one job a module: Code 2
    (linear, SMW) and Code 3 (kernels), an exact active-set Newton solver for the same
    dual, its working sets on kernel rows computed on demand, and LagrangianSVC.
lsvm_dask
    The linear LSVM on a Dask array chunked by rows, ksvm.lsvm.dask under its public name
    (imported on its own, like plotting, so that ksvm needs no Dask): lsvm.lsvm_linear,
    lsvm.lsvm_linear_newton and LagrangianSVC hand a Dask array to it.
features
    Explicit approximate features of the Gaussian kernel (random Fourier, Nystroem,
    RSVM's reduced kernel), on which Code 2 runs as a nonlinear classifier.
rlsc
    Regularized least-squares classification (Rennie): the bordered system, direct and CG.
class_statistics
    The class statistics of Cocianu & State in the feature space: the weight rho_1 by
    their lemma, the class variability and its index, the standard and variability biases.
ascent
    The weighted gradient ascent of Cocianu & State and their hard-margin GradientAscentSVC.
rlr
    Regularized logistic regression with a kernel (Rennie): gradient descent, L-BFGS, Newton.

The chapters' own support (printed claims, listings, explorers, figures) is the
subpackage ``ksvm.book``, imported on its own: ``import ksvm`` does not load it, and
needs neither matplotlib nor ipywidgets.
"""

from . import (
    ascent,
    base,
    class_statistics,
    columns,
    datasets,
    features,
    kernel_rules,
    kernels,
    linalg,
    lsvm,
    mercer,
    nearest_mean,
    polynomial_map,
    primal,
    rlr,
    rlsc,
    smo,
)
from .ascent import GradientAscentSVC
from .lsvm import LagrangianSVC
from .mercer import check_mercer
from .nearest_mean import KernelMeanClassifier
from .rlr import KernelLogisticRegression
from .rlsc import RLSClassifier
from .smo import SoftMarginSVC

__version__ = "0.1.0"

__all__ = [
    "GradientAscentSVC",
    "KernelLogisticRegression",
    "KernelMeanClassifier",
    "LagrangianSVC",
    "RLSClassifier",
    "SoftMarginSVC",
    "ascent",
    "base",
    "check_mercer",
    "class_statistics",
    "columns",
    "datasets",
    "features",
    "kernel_rules",
    "kernels",
    "linalg",
    "lsvm",
    "mercer",
    "nearest_mean",
    "polynomial_map",
    "primal",
    "rlr",
    "rlsc",
    "smo",
]
