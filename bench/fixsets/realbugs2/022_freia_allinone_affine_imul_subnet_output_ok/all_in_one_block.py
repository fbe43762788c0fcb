import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class AllInOneBlock(nn.Module):
    '''Affine coupling + permutation + global affine ('ActNorm') block (FrEIA, reduced
    to 1D inputs and hard permutations).'''

    def __init__(self, dims_in, subnet_constructor=None, affine_clamping=2.,
                 gin_block=False, global_affine_init=1., global_affine_type='SOFTPLUS'):
        super().__init__()
        channels = dims_in[0][0]
        self.input_rank = len(dims_in[0]) - 1
        self.sum_dims = tuple(range(1, 2 + self.input_rank))

        split_len1 = channels - channels // 2
        split_len2 = channels // 2
        self.splits = [split_len1, split_len2]
        self.permute_function = F.linear

        self.in_channels = channels
        self.clamp = affine_clamping
        self.GIN = gin_block

        if global_affine_type == 'SOFTPLUS':
            global_scale = 2. * np.log(np.exp(0.5 * 10. * global_affine_init) - 1)
            self.softplus = nn.Softplus(beta=0.5)
            self.global_scale_activation = self._softplus_global_scale_activation
        else:
            raise ValueError('Global affine activation must be "SOFTPLUS" here')

        self.global_scale = nn.Parameter(torch.ones(1, self.in_channels) * float(global_scale))
        self.global_offset = nn.Parameter(torch.zeros(1, self.in_channels))

        w = torch.zeros(channels, channels)
        for i, j in enumerate(torch.randperm(channels).tolist()):
            w[i, j] = 1.
        self.w_perm = nn.Parameter(w, requires_grad=False)
        self.w_perm_inv = nn.Parameter(w.t().contiguous(), requires_grad=False)

        if subnet_constructor is None:
            raise ValueError("Please supply a callable subnet_constructor")
        self.subnet = subnet_constructor(self.splits[0], 2 * self.splits[1])

    def _softplus_global_scale_activation(self, a):
        return 0.1 * self.softplus(a)

    def _permute(self, x, rev=False):
        if self.GIN:
            scale = 1.
            perm_log_jac = 0.
        else:
            scale = self.global_scale_activation(self.global_scale)
            perm_log_jac = torch.sum(torch.log(scale))

        if rev:
            return ((self.permute_function(x, self.w_perm_inv) - self.global_offset) / scale,
                    perm_log_jac)
        else:
            return (self.permute_function(x * scale + self.global_offset, self.w_perm),
                    perm_log_jac)

    def _affine(self, x, a, rev=False):
        '''Given the passive half, and the pre-activation outputs of the
        coupling subnetwork, perform the affine coupling operation.
        Returns both the transformed inputs and the LogJacDet.'''

        # the entire coupling coefficient tensor is scaled down by a
        # factor of ten for stability and easier initialization.
        a *= 0.1
        ch = x.shape[1]

        sub_jac = self.clamp * torch.tanh(a[:, :ch])
        if self.GIN:
            sub_jac -= torch.mean(sub_jac, dim=self.sum_dims, keepdim=True)

        if not rev:
            return (x * torch.exp(sub_jac) + a[:, ch:],
                    torch.sum(sub_jac, dim=self.sum_dims))
        else:
            return ((x - a[:, ch:]) * torch.exp(-sub_jac),
                    -torch.sum(sub_jac, dim=self.sum_dims))

    def forward(self, x, rev=False):
        x1, x2 = torch.split(x[0], self.splits, dim=1)

        a1 = self.subnet(x1)
        x2, j2 = self._affine(x2, a1, rev=rev)

        log_jac_det = j2
        x_out = torch.cat((x1, x2), 1)

        x_out, global_scaling_jac = self._permute(x_out, rev=False)

        n_pixels = x_out[0, :1].numel()
        log_jac_det = log_jac_det + (-1)**rev * n_pixels * global_scaling_jac

        return (x_out,), log_jac_det
