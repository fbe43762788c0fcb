# Variational Monte Carlo energy of a Jastrow-correlated wave function (NLESC-JCER/QMCTorch,
# issue 30), reduced: the molecular orbitals are a single Gaussian orbital per electron instead
# of the ADF basis, and the sampler is replaced by fixed walker positions. The Jacobi kinetic
# energy uses the Jastrow factor's first and second derivatives (jastrow.py).
import torch
from torch import nn

from jastrow import TwoBodyJastrowFactor


class Orbital(nn.Module):
    def __init__(self, nup, ndown, use_jastrow=True):
        super(Orbital, self).__init__()
        self.nup, self.ndown = nup, ndown
        self.nelec = nup + ndown
        self.ndim = 3
        self.use_jastrow = use_jastrow
        self.jastrow = TwoBodyJastrowFactor(nup, ndown, w=1.)
        # one s-type Gaussian exponent per electron (stand-in for the MO layer)
        self.alpha = nn.Parameter(torch.full((self.nelec,), 0.6))

    def _get_mo_vals(self, x, derivative=0):
        r2 = x.view(-1, self.nelec, self.ndim).pow(2).sum(-1)
        phi = torch.exp(-self.alpha * r2)
        if derivative == 0:
            return phi
        # laplacian of exp(-a r^2) = (4 a^2 r^2 - 6 a) exp(-a r^2)
        return (4 * self.alpha ** 2 * r2 - 6 * self.alpha) * phi

    def _get_mo_grad(self, x):
        pos = x.view(-1, self.nelec, self.ndim)
        phi = self._get_mo_vals(x)
        return (-2 * self.alpha.unsqueeze(-1) * pos * phi.unsqueeze(-1)).transpose(1, 2)

    def get_kinetic_operator(self, x, mo=None):
        if mo is None:
            mo = self._get_mo_vals(x)

        bkin = self._get_mo_vals(x, derivative=2)
        djast_dmo, d2jast_mo = None, None

        if self.use_jastrow:

            jast = self.jastrow(x)
            djast = self.jastrow(x, derivative=1, jacobian=False)
            djast = djast / jast.unsqueeze(-1)

            dmo = self._get_mo_grad(x)

            djast_dmo = (djast * dmo).sum(1)
            d2jast = self.jastrow(x, derivative=2) / jast
            d2jast_mo = d2jast * mo

            bkin = bkin + 2 * djast_dmo + d2jast_mo

        return bkin

    def kinetic_energy_jacobi(self, x):
        mo = self._get_mo_vals(x)
        bkin = self.get_kinetic_operator(x, mo=mo)
        return -0.5 * (bkin / mo).sum(-1, keepdim=True)

    def nuclear_potential(self, x):
        r = x.view(-1, self.nelec, self.ndim).norm(dim=-1)
        return -(1. / r).sum(-1, keepdim=True)

    def electronic_potential(self, x):
        r = self.jastrow.extract_tri_up(self.jastrow.edist(x))
        return (1. / r).sum(-1, keepdim=True)

    def local_energy_jacobi(self, pos):
        ke = self.kinetic_energy_jacobi(pos)
        return ke + self.nuclear_potential(pos) + self.electronic_potential(pos)


def main():
    torch.manual_seed(0)
    wf = Orbital(nup=2, ndown=1)
    opt = torch.optim.Adam(wf.parameters(), lr=1e-2)

    pos = torch.randn(6, wf.nelec * wf.ndim)   # walkers
    eloc = wf.local_energy_jacobi(pos)
    loss = eloc.mean()
    opt.zero_grad()
    loss.backward()
    out = {"eloc": eloc.detach(), "loss": loss.detach(),
           "grad_jastrow.weight": wf.jastrow.weight.grad.clone(),
           "grad_alpha": wf.alpha.grad.clone()}
    opt.step()
    out["jastrow.weight"] = wf.jastrow.weight.detach().clone()
    out["alpha"] = wf.alpha.detach().clone()
    return out


if __name__ == "__main__":
    main()
