# From NLESC-JCER/QMCTorch qmctorch/wavefunction/fast_jastrow.py before PR 33 (reduced)
import torch
from torch import nn
from electron_distance import ElectronDistance


class TwoBodyJastrowFactor(nn.Module):

    def __init__(self, nup, ndown, w=1., cuda=False):

        super(TwoBodyJastrowFactor, self).__init__()

        self.nup = nup
        self.ndown = ndown
        self.nelec = nup + ndown
        self.ndim = 3

        self.cuda = cuda
        self.device = torch.device('cpu')
        if self.cuda:
            self.device = torch.device('cuda')

        self.weight = nn.Parameter(torch.tensor([w]))
        self.weight.requires_grad = True

        self.mask_tri_up, self.index_col, self.index_row = self.get_mask_tri_up()

        self.edist = ElectronDistance(self.nelec, self.ndim)

        self.static_weight = self.get_static_weight()

        self._get_index_partial_derivative()

    def get_mask_tri_up(self):
        mask = torch.zeros(self.nelec, self.nelec).type(
            torch.bool).to(self.device)
        index_col, index_row = [], []
        for i in range(self.nelec-1):
            for j in range(i+1, self.nelec):
                index_row.append(i)
                index_col.append(j)
                mask[i, j] = True

        index_col = torch.LongTensor(index_col).to(self.device)
        index_row = torch.LongTensor(index_row).to(self.device)
        return mask, index_col, index_row

    def extract_tri_up(self, input):
        nbatch = input.shape[0]
        return input.masked_select(self.mask_tri_up).view(nbatch, -1)

    def get_static_weight(self):

        bup = torch.cat((0.25 * torch.ones(self.nup, self.nup), 0.5 *
                         torch.ones(self.nup, self.ndown)), dim=1)

        bdown = torch.cat((0.5 * torch.ones(self.ndown, self.nup), 0.25 *
                           torch.ones(self.ndown, self.ndown)), dim=1)

        static_weight = torch.cat((bup, bdown), dim=0).to(self.device)
        static_weight = static_weight.masked_select(self.mask_tri_up)

        return static_weight

    def forward(self, pos, derivative=0, jacobian=True):
        if not jacobian:
            assert(derivative == 1)

        size = pos.shape
        assert size[1] == self.nelec * self.ndim
        nbatch = size[0]

        r = self.extract_tri_up(self.edist(pos))
        jast = self._get_jastrow_elements(r)

        if derivative == 0:
            return jast.prod(1).view(nbatch, 1)

        elif derivative == 1:
            dr = self.extract_tri_up(self.edist(
                pos, derivative=1)).view(nbatch, 3, -1)
            return self._jastrow_derivative(r, dr, jast, jacobian)

        elif derivative == 2:

            dr = self.extract_tri_up(self.edist(
                pos, derivative=1)).view(nbatch, 3, -1)
            d2r = self.extract_tri_up(self.edist(
                pos, derivative=2)).view(nbatch, 3, -1)
            return self._jastrow_second_derivative(r, dr, d2r, jast)

    def _jastrow_derivative(self, r, dr, jast, jacobian):
        nbatch = r.shape[0]
        if jacobian:

            prod_val = jast.prod(1).unsqueeze(-1)
            djast = self._get_der_jastrow_elements(r, dr).sum(1)
            djast = djast * prod_val

            # might cause problems with backward cause in place operation
            out = torch.zeros(nbatch, self.nelec).to(self.device)
            out.index_add_(1, self.index_row, djast)
            out.index_add_(1, self.index_col, -djast)

        else:

            prod_val = jast.prod(1).unsqueeze(-1).unsqueeze(-1)
            djast = self._get_der_jastrow_elements(r, dr)
            djast = djast * prod_val

            # might cause problems with backward cause in place operation
            out = torch.zeros(nbatch, 3, self.nelec).to(self.device)
            out.index_add_(2, self.index_row, djast)
            out.index_add_(2, self.index_col, -djast)

        return out

    def _jastrow_second_derivative(self, r, dr, d2r, jast):
        nbatch = r.shape[0]

        # pure second derivative terms
        prod_val = jast.prod(1).unsqueeze(-1)

        d2jast = self._get_second_der_jastrow_elements(
            r, dr, d2r).sum(1)

        # might cause problems with backward cause in place operation
        hess_jast = torch.zeros(nbatch, self.nelec).to(self.device)
        hess_jast.index_add_(1, self.index_row, d2jast)
        hess_jast.index_add_(1, self.index_col, d2jast)
        hess_jast *= 0.5

        # mixed terms
        djast = (self._get_der_jastrow_elements(r, dr))

        hess_jast += self._partial_derivative(
            djast, out_mat=hess_jast)

        return hess_jast * prod_val

    def _get_jastrow_elements(self, r):
        return torch.exp(self._compute_kernel(r))

    def _compute_kernel(self, r):
        return self.static_weight * r / (1.0 + self.weight * r)

    def _get_der_jastrow_elements(self, r, dr):

        r_ = r.unsqueeze(1)
        denom = 1. / (1.0 + self.weight * r_)
        a = self.static_weight * dr * denom
        b = - self.static_weight * self.weight * r_ * dr * denom**2

        return (a + b)

    def _get_second_der_jastrow_elements(self, r, dr, d2r):

        r_ = r.unsqueeze(1)
        denom = 1. / (1.0 + self.weight * r_)
        denom2 = denom**2
        dr_square = dr**2

        a = self.static_weight * d2r * denom
        b = -2 * self.static_weight * self.weight * dr_square * denom2
        c = - self.static_weight * self.weight * r_ * d2r * denom2
        d = 2 * self.static_weight * self.weight**2 * r_ * dr_square * denom**3

        e = self._get_der_jastrow_elements(r, dr)

        return a + b + c + d + e**2

    def _get_index_partial_derivative(self):

        self.index_partial_der = []
        self.weight_partial_der = []
        self.index_partial_der_to_elec = []

        for idx in range(self.nelec):
            index_pairs = [(idx, j, 1.) for j in range(
                idx + 1, self.nelec)] + [(j, idx, -1.) for j in range(0, idx)]

            for p1 in range(len(index_pairs) - 1):
                i1, j1, w1 = index_pairs[p1]

                for p2 in range(p1 + 1, len(index_pairs)):
                    i2, j2, w2 = index_pairs[p2]

                    idx1 = self._single_index(i1, j1)
                    idx2 = self._single_index(i2, j2)

                    self.index_partial_der.append([idx1, idx2])
                    self.weight_partial_der.append(w1*w2)
                    self.index_partial_der_to_elec.append(idx)

        self.weight_partial_der = torch.tensor(
            self.weight_partial_der).to(self.device)

        self.index_partial_der_to_elec = torch.LongTensor(
            self.index_partial_der_to_elec).to(self.device)

        if self.weight_partial_der.shape[0] == 0:
            self.weight_partial_der = 1.

    def _single_index(self, i, j):
        n = self.nelec
        return int((n*(n-1)/2) - (n-i)*((n-i)-1)/2 + j - i - 1)

    def _partial_derivative(self, djast, out_mat=None):

        nbatch = djast.shape[0]
        if out_mat is None:
            out_mat = torch.zeros(nbatch, self.nelec).to(self.device)

        if len(self.index_partial_der) > 0:
            x = djast[..., self.index_partial_der]
            x = x.prod(-1)
            x *= self.weight_partial_der
            x = x.sum(1)
            out_mat.index_add_(1, self.index_partial_der_to_elec, x)

        return out_mat
