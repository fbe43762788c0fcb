# From NLESC-JCER/QMCTorch qmctorch/wavefunction/electron_distance.py (reduced)
import torch
from torch import nn


class ElectronDistance(nn.Module):

    def __init__(self, nelec, ndim):
        super(ElectronDistance, self).__init__()
        self.nelec = nelec
        self.ndim = ndim

        _type_ = torch.get_default_dtype()
        if _type_ == torch.float32:
            self.eps = 1E-6
        elif _type_ == torch.float64:
            self.eps = 1E-16

    def forward(self, input, derivative=0):
        # get the distance matrices
        input_ = input.view(-1, self.nelec, self.ndim)
        dist = self._get_distance_quadratic(input_)

        # eosilon on the diag needed for back prop
        eps_ = self.eps * \
            torch.diag(dist.new_ones(dist.shape[-1])).expand_as(dist)

        # extact the diagonal as diag can be negative someties
        # due to numerical noise
        diag = torch.diag_embed(
            torch.diagonal(
                dist, dim1=-1, dim2=-2))

        # remove diagonal and add eps for backprop
        dist = torch.sqrt(dist - diag + eps_)

        if derivative == 0:
            return dist

        elif derivative == 1:

            eps_ = self.eps * \
                torch.diag(dist.new_ones(
                    dist.shape[-1])).expand_as(dist)

            invr = (1. / (dist + eps_)).unsqueeze(1)
            diff_axis = input_.transpose(1, 2).unsqueeze(3)
            diff_axis = diff_axis - diff_axis.transpose(2, 3)
            return diff_axis * invr

        elif derivative == 2:

            eps_ = self.eps * \
                torch.diag(dist.new_ones(
                    dist.shape[-1])).expand_as(dist)
            invr3 = (1. / (dist**3 + eps_)).unsqueeze(1)
            diff_axis = input_.transpose(1, 2).unsqueeze(3)
            diff_axis = (diff_axis - diff_axis.transpose(2, 3))**2

            diff_axis = diff_axis[:, [
                [1, 2], [2, 0], [0, 1]], ...].sum(2)
            return (diff_axis * invr3)

    @staticmethod
    def _get_distance_quadratic(input):
        norm = (input**2).sum(-1).unsqueeze(-1)
        dist = (norm + norm.transpose(1, 2) - 2.0 *
                torch.bmm(input, input.transpose(1, 2)))
        return dist
