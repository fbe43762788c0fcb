import torch


def scatter_add(src, index, dim=-1, dim_size=None):
    dim_size = int(index.max()) + 1 if dim_size is None else dim_size
    out = torch.zeros(dim_size, dtype=src.dtype)
    return out.scatter_add(0, index, src)


def scatter_max(src, index, dim=-1, dim_size=None):
    dim_size = int(index.max()) + 1 if dim_size is None else dim_size
    out = torch.full((dim_size,), float('-inf'), dtype=src.dtype)
    out = out.scatter_reduce(0, index, src, reduce='amax', include_self=True)
    return out, None


def scatter_softmax(src, index, dim=-1, eps=1e-12):
    if not torch.is_floating_point(src):
        raise ValueError('`scatter_softmax` can only be computed over tensors with floating point data types.')

    max_value_per_index, _ = scatter_max(src, index, dim=dim)
    max_per_src_element = max_value_per_index.gather(dim, index)

    recentered_scores = src - max_per_src_element
    recentered_scores_exp = recentered_scores.exp_()

    sum_per_index = scatter_add(recentered_scores_exp, index, dim=dim)
    normalizing_constants = (sum_per_index + eps).gather(dim, index)

    return recentered_scores_exp.div(normalizing_constants)
