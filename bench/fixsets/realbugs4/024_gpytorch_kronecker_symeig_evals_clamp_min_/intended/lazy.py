"""gpytorch.lazy (commit 4c856322^, July 2020), reduced to what a Kronecker multitask GP's exact MLL uses.

KroneckerProductLazyTensor._symeig and KroneckerProductAddedDiagLazyTensor (_logdet, _solve) keep the
repository's bodies; the one adaptation is torch.symeig (removed from torch 2.x) written as
torch.linalg.eigh, which returns the same (ascending) eigenvalues and eigenvectors and, like symeig, saves
both outputs for its backward. The base classes are cut down to the methods those bodies call.
"""
import functools

import torch
from torch import Size, Tensor


# gpytorch.utils.memoize
def add_to_cache(obj, name, val):
    if not hasattr(obj, "_memoize_cache"):
        obj._memoize_cache = dict()
    obj._memoize_cache[name] = val
    return obj


def get_from_cache(obj, name):
    if not is_in_cache(obj, name):
        raise RuntimeError("Object does not have item {} stored in cache.".format(name))
    return obj._memoize_cache[name]


def is_in_cache(obj, name):
    return hasattr(obj, "_memoize_cache") and name in obj._memoize_cache


def cached(method=None, name=None):
    if method is None:
        return functools.partial(cached, name=name)

    @functools.wraps(method)
    def g(self, *args, **kwargs):
        cache_name = name if name is not None else method
        if not is_in_cache(self, cache_name):
            add_to_cache(self, cache_name, method(self, *args, **kwargs))
        return get_from_cache(self, cache_name)

    return g


class LazyTensor(object):
    def __init__(self, *args, **kwargs):
        self._args = args
        self._kwargs = kwargs

    @property
    def shape(self):
        return self._size()

    def size(self, dim=None):
        size = self._size()
        return size if dim is None else size[dim]

    @property
    def batch_shape(self):
        return self.shape[:-2]

    def transpose(self, dim1, dim2):
        return self._transpose_nonbatch()

    def matmul(self, other):
        if isinstance(other, LazyTensor):
            return MatmulLazyTensor(self, other)
        return self._matmul(other)

    def double(self):
        return self.__class__(*(arg.double() for arg in self._args), **self._kwargs)


class NonLazyTensor(LazyTensor):
    def __init__(self, tsr):
        super().__init__(tsr)
        self.tensor = tsr

    def _matmul(self, rhs):
        return torch.matmul(self.tensor, rhs)

    def _size(self):
        return self.tensor.size()

    def _transpose_nonbatch(self):
        return NonLazyTensor(self.tensor.transpose(-1, -2))

    def diag(self):
        return self.tensor.diagonal(dim1=-1, dim2=-2)

    def evaluate(self):
        return self.tensor


def lazify(obj):
    if torch.is_tensor(obj):
        return NonLazyTensor(obj)
    elif isinstance(obj, LazyTensor):
        return obj
    else:
        raise TypeError("object of class {} cannot be made into a LazyTensor".format(obj.__class__.__name__))


class MatmulLazyTensor(LazyTensor):
    def __init__(self, left_lazy_tensor, right_lazy_tensor):
        super().__init__(left_lazy_tensor, right_lazy_tensor)
        self.left_lazy_tensor = left_lazy_tensor
        self.right_lazy_tensor = right_lazy_tensor

    def _matmul(self, rhs):
        return self.left_lazy_tensor._matmul(self.right_lazy_tensor._matmul(rhs))

    def _size(self):
        return Size((*self.left_lazy_tensor.batch_shape, self.left_lazy_tensor.size(-2),
                     self.right_lazy_tensor.size(-1)))


class DiagLazyTensor(LazyTensor):
    def __init__(self, diag):
        super().__init__(diag)
        self._diag = diag

    def _matmul(self, rhs):
        if rhs.ndimension() == 1:
            return self._diag * rhs
        return self._diag.unsqueeze(-1) * rhs

    def _size(self):
        return self._diag.shape + self._diag.shape[-1:]

    def _transpose_nonbatch(self):
        return self

    def diag(self):
        return self._diag

    def evaluate(self):
        return torch.diag_embed(self._diag)


def _matmul(lazy_tensors, kp_shape, rhs):
    output_batch_shape = kp_shape[:-2]
    res = rhs.contiguous().expand(*output_batch_shape, *rhs.shape[-2:])
    num_cols = rhs.size(-1)
    for lazy_tensor in lazy_tensors:
        res = res.view(*output_batch_shape, lazy_tensor.size(-1), -1)
        factor = lazy_tensor._matmul(res)
        factor = factor.view(*output_batch_shape, lazy_tensor.size(-2), -1, num_cols).transpose(-3, -2)
        res = factor.reshape(*output_batch_shape, -1, num_cols)
    return res


class KroneckerProductLazyTensor(LazyTensor):
    def __init__(self, *lazy_tensors):
        try:
            lazy_tensors = tuple(lazify(lazy_tensor) for lazy_tensor in lazy_tensors)
        except TypeError:
            raise RuntimeError("KroneckerProductLazyTensor is intended to wrap lazy tensors.")
        super(KroneckerProductLazyTensor, self).__init__(*lazy_tensors)
        self.lazy_tensors = lazy_tensors

    def __add__(self, other):
        if isinstance(other, DiagLazyTensor):
            return self.add_diag(other.diag())
        else:
            raise NotImplementedError("only the diagonal case is kept in this reduction")

    def _matmul(self, rhs):
        is_vec = rhs.ndimension() == 1
        if is_vec:
            rhs = rhs.unsqueeze(-1)
        res = _matmul(self.lazy_tensors, self.shape, rhs.contiguous())
        if is_vec:
            res = res.squeeze(-1)
        return res

    def _size(self):
        left_size = 1
        right_size = 1
        for lazy_tensor in self.lazy_tensors:
            left_size *= lazy_tensor.size(-2)
            right_size *= lazy_tensor.size(-1)
        return Size((*self.lazy_tensors[0].batch_shape, left_size, right_size))

    def _transpose_nonbatch(self):
        return self.__class__(*(lazy_tensor._transpose_nonbatch() for lazy_tensor in self.lazy_tensors), **self._kwargs)

    def add_diag(self, diag):
        r"""
        Adds a diagonal to a KroneckerProductLazyTensor
        """
        try:
            expanded_diag = diag.expand(self.shape[:-1])
        except RuntimeError:
            raise RuntimeError(
                "add_diag for LazyTensor of size {} received invalid diagonal of size {}.".format(
                    self.shape, diag.shape
                )
            )

        return KroneckerProductAddedDiagLazyTensor(self, DiagLazyTensor(expanded_diag))

    def diag(self):
        lead_diag = self.lazy_tensors[0].diag()
        for lazy_tensor in self.lazy_tensors[1:]:
            trail_diag = lazy_tensor.diag()
            diag = lead_diag.unsqueeze(-2) * trail_diag.unsqueeze(-1)
            lead_diag = diag.transpose(-1, -2).reshape(*diag.shape[:-2], -1)
        return lead_diag

    @cached(name="symeig")
    def _symeig(self, eigenvectors=True):
        # eigenvectors may not get zeroed if called w/o eigenvectors after initialization

        evals, evecs = [], []
        for lazy_tensor in self.lazy_tensors:
            # TODO: replace with lazy_tensor.symeig() once that is added in.
            # TODO: ensure that the symeig call is also done in this manner

            eval_tensor = lazy_tensor.evaluate()
            tensor_dtype = eval_tensor.dtype

            evals_, evecs_ = torch.linalg.eigh(eval_tensor.double())  # was: .symeig(eigenvectors=eigenvectors)

            # we chop any negative eigenvalues
            evals_ = evals_.clamp_min(0.0)

            evals_ = evals_.type(tensor_dtype)
            evecs_ = evecs_.type(tensor_dtype)

            evals.append(evals_)
            evecs.append(evecs_)
        evals = KroneckerProductLazyTensor(*[DiagLazyTensor(evals_) for evals_ in evals])
        if eigenvectors:
            evecs = KroneckerProductLazyTensor(*[lazify(evecs_) for evecs_ in evecs])
        else:
            evecs = Tensor([])

        return evals, evecs


class KroneckerProductAddedDiagLazyTensor(LazyTensor):
    def __init__(self, *lazy_tensors, preconditioner_override=None):
        super(KroneckerProductAddedDiagLazyTensor, self).__init__(*lazy_tensors)
        if len(lazy_tensors) > 2:
            raise RuntimeError("An AddedDiagLazyTensor can only have two components")
        elif isinstance(lazy_tensors[0], DiagLazyTensor):
            self.diag_tensor = lazy_tensors[0]
            self.lazy_tensor = lazy_tensors[1]
        elif isinstance(lazy_tensors[1], DiagLazyTensor):
            self.diag_tensor = lazy_tensors[1]
            self.lazy_tensor = lazy_tensors[0]
        else:
            raise RuntimeError("One of the LazyTensors input to AddedDiagLazyTensor must be a DiagLazyTensor!")

    def _size(self):
        return self.lazy_tensor.shape

    def inv_quad_logdet(self, inv_quad_rhs=None, logdet=False, reduce_inv_quad=True):

        if logdet is not None:
            logdet_term = self._logdet()
        else:
            logdet_term = None

        if inv_quad_rhs is not None:
            # the repository calls LazyTensor.inv_quad_logdet here (an InvQuadLogDet autograd Function whose
            # solves go through self._solve); the reduction computes rhs^T K^{-1} rhs with _solve directly
            inv_quad_term = (inv_quad_rhs * self._solve(inv_quad_rhs)).sum(-2)
            if reduce_inv_quad:
                inv_quad_term = inv_quad_term.sum(-1)
        else:
            inv_quad_term = None

        return inv_quad_term, logdet_term

    def _logdet(self):
        eig_matrix, _ = self.lazy_tensor._symeig()
        evals_plus_diag = eig_matrix.diag() + self.diag_tensor.diag()
        return torch.log(evals_plus_diag).sum(dim=-1)

    def _preconditioner(self):
        # solves don't use CG so don't waste time computing it
        return None, None, None

    def _solve(self, rhs, preconditioner=None, num_tridiag=0):
        # we do the solve in double for numerical stability issues

        rhs_dtype = rhs.dtype
        rhs = rhs.double()

        eig_matrix, q_matrix = self.lazy_tensor._symeig()
        eig_matrix, q_matrix = eig_matrix.double(), q_matrix.double()

        eigs_plus_diagonal = eig_matrix.diag() + self.diag_tensor.diag()
        eigs_root = eigs_plus_diagonal.pow(0.5)
        inv_mat_sqrt = DiagLazyTensor(eigs_root.reciprocal())

        res = q_matrix.transpose(-2, -1).matmul(rhs)
        res2 = inv_mat_sqrt.matmul(res)

        lazy_lhs = q_matrix.matmul(inv_mat_sqrt)
        return lazy_lhs.matmul(res2).type(rhs_dtype)
