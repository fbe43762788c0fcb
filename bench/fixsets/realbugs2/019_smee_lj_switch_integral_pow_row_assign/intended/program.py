"""smee (openforcefield/smee, issue #148 / PR #150): _integrate_lj_switch() builds
r_pow = torch.pow(r, powers) and then overwrites the r**0 row with `r_pow[-3] = log(r)`;
with the cutoff/switch attributes requiring grad, PowBackward needs its saved result."""
from types import SimpleNamespace

import torch

from nonbonded import compute_lj_energy


def main():
    torch.manual_seed(0)
    dtype = torch.float64
    potential = SimpleNamespace(
        parameter_cols=("epsilon", "sigma"),
        parameters=torch.tensor([[0.1, 3.4], [0.2, 3.1], [0.15, 2.9]], dtype=dtype),
        attribute_cols=("cutoff", "switch_width"),
        attributes=torch.tensor([9.0, 1.0], dtype=dtype),
        exceptions={(0, 2): 2},
    )
    system = SimpleNamespace(atom_types=torch.tensor([0, 0, 1, 2, 1]),
                             type_counts=torch.tensor([40.0, 25.0, 10.0], dtype=dtype))
    conformer = torch.randn(5, 3, dtype=dtype) * 3.0
    box_vectors = torch.eye(3, dtype=dtype) * 30.0
    conformer.requires_grad = True
    potential.parameters.requires_grad = True
    potential.attributes.requires_grad = True

    energy = compute_lj_energy(system, potential, conformer, box_vectors)
    energy.backward()
    return {"energy": energy.detach(), "conformer.grad": conformer.grad,
            "parameters.grad": potential.parameters.grad,
            "attributes.grad": potential.attributes.grad}


if __name__ == "__main__":
    main()
