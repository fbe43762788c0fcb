"""A Kronecker multitask GP trained with the exact marginal log likelihood (gpytorch, July 2020).

The model has the layout of gpytorch's test_kronecker_multitask_gp_regression example (MultitaskMean of
ConstantMeans, MultitaskKernel(RBFKernel, num_tasks=2, rank=2) whose forward returns
KroneckerProductLazyTensor(covar_x, covar_i)) and its training loop (Adam, loss = -mll(output, train_y)).
The noise is homoskedastic Gaussian noise added as a DiagLazyTensor, so the marginal covariance
`covar + noise_covar` goes through KroneckerProductLazyTensor.__add__ -> add_diag ->
KroneckerProductAddedDiagLazyTensor, whose logdet and solve use the eigendecomposition in _symeig.
Sizes are shrunk (10 inputs, 2 steps).
"""
import math

import torch
import torch.nn.functional as F

from lazy import DiagLazyTensor, KroneckerProductLazyTensor, lazify


class ConstantMean(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.constant = torch.nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return self.constant.expand(x.shape[:-1])


class MultitaskMean(torch.nn.Module):
    def __init__(self, base_means, num_tasks):
        super().__init__()
        self.base_means = torch.nn.ModuleList([base_means] + [type(base_means)() for _ in range(num_tasks - 1)])

    def forward(self, input):
        return torch.cat([sub_mean(input).unsqueeze(-1) for sub_mean in self.base_means], dim=-1)


class RBFKernel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_lengthscale = torch.nn.Parameter(torch.zeros(1, 1))

    @property
    def lengthscale(self):
        return F.softplus(self.raw_lengthscale)  # Positive() constraint

    def forward(self, x1, x2):
        x1_ = x1.div(self.lengthscale)
        x2_ = x2.div(self.lengthscale)
        sq_dist = (x1_.unsqueeze(-2) - x2_.unsqueeze(-3)).pow(2).sum(-1)
        return sq_dist.div_(-2).exp_()


class IndexKernel(torch.nn.Module):
    def __init__(self, num_tasks, rank=1):
        super().__init__()
        self.covar_factor = torch.nn.Parameter(torch.randn(num_tasks, rank))
        self.raw_var = torch.nn.Parameter(torch.randn(num_tasks))

    @property
    def var(self):
        return F.softplus(self.raw_var)

    @property
    def covar_matrix(self):
        cf = self.covar_factor
        return lazify(cf @ cf.transpose(-1, -2) + torch.diag_embed(self.var))


class MultitaskKernel(torch.nn.Module):
    def __init__(self, data_covar_module, num_tasks, rank=1):
        super().__init__()
        self.task_covar_module = IndexKernel(num_tasks=num_tasks, rank=rank)
        self.data_covar_module = data_covar_module
        self.num_tasks = num_tasks

    def forward(self, x1, x2):
        covar_i = self.task_covar_module.covar_matrix
        covar_x = lazify(self.data_covar_module.forward(x1, x2))
        res = KroneckerProductLazyTensor(covar_x, covar_i)
        return res


class MultitaskMultivariateNormal(object):
    def __init__(self, mean, covariance_matrix):
        self.mean = mean
        self.lazy_covariance_matrix = covariance_matrix

    def log_prob(self, value):
        covar = self.lazy_covariance_matrix
        diff = (value - self.mean).reshape(-1)  # interleaved: task index varies fastest
        inv_quad, logdet = covar.inv_quad_logdet(inv_quad_rhs=diff.unsqueeze(-1), logdet=True)
        res = -0.5 * sum([inv_quad, logdet, diff.size(-1) * math.log(2 * math.pi)])
        return res


class GaussianNoiseLikelihood(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_noise = torch.nn.Parameter(torch.zeros(1))

    @property
    def noise(self):
        return 1e-4 + F.softplus(self.raw_noise)  # GreaterThan(1e-4)

    def marginal(self, function_dist):
        mean, covar = function_dist.mean, function_dist.lazy_covariance_matrix
        noise_covar = DiagLazyTensor(self.noise.expand(mean.numel()))
        full_covar = covar + noise_covar
        return function_dist.__class__(mean, full_covar)


class MultitaskGPModel(torch.nn.Module):
    def __init__(self, train_x, train_y, likelihood):
        super().__init__()
        self.train_inputs = (train_x,)
        self.train_targets = train_y
        self.likelihood = likelihood
        self.mean_module = MultitaskMean(ConstantMean(), num_tasks=2)
        self_covar_module = RBFKernel()
        self.covar_module = MultitaskKernel(self_covar_module, num_tasks=2, rank=2)

    def forward(self, x):
        x = x.unsqueeze(-1) if x.ndimension() == 1 else x
        mean_x = self.mean_module(x)
        covar_x = self.covar_module(x, x)
        return MultitaskMultivariateNormal(mean_x, covar_x)


class ExactMarginalLogLikelihood(torch.nn.Module):
    def __init__(self, likelihood, model):
        super().__init__()
        self.likelihood = likelihood
        self.model = model

    def forward(self, function_dist, target):
        output = self.likelihood.marginal(function_dist)
        res = output.log_prob(target)
        num_data = target.size(0)
        return res.div_(num_data)


def main():
    torch.manual_seed(0)
    train_x = torch.linspace(0, 1, 10)
    train_y1 = torch.sin(train_x * (2 * math.pi)) + torch.randn(train_x.size()) * 0.1
    train_y2 = torch.cos(train_x * (2 * math.pi)) + torch.randn(train_x.size()) * 0.1
    train_y = torch.stack([train_y1, train_y2], -1)

    likelihood = GaussianNoiseLikelihood()
    model = MultitaskGPModel(train_x, train_y, likelihood)
    model.train()
    likelihood.train()

    optimizer = torch.optim.Adam([{"params": model.parameters()}], lr=0.1)  # Includes the likelihood's noise
    mll = ExactMarginalLogLikelihood(likelihood, model)

    losses = []
    for _ in range(2):
        optimizer.zero_grad()
        output = model(train_x)
        loss = -mll(output, train_y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses,
            "raw_lengthscale": model.covar_module.data_covar_module.raw_lengthscale.detach().clone(),
            "covar_factor": model.covar_module.task_covar_module.covar_factor.detach().clone(),
            "raw_noise": likelihood.raw_noise.detach().clone()}


if __name__ == "__main__":
    main()
