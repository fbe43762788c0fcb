import torch


def tensor_like(data, other: torch.Tensor) -> torch.Tensor:
    """Create a tensor with the same device and type as another tensor."""
    if isinstance(data, torch.Tensor):
        return data.clone().detach().to(other.device, other.dtype)
    return torch.tensor(data, dtype=other.dtype, device=other.device)


def lorentz_berthelot(eps_a, eps_b, sig_a, sig_b):
    return torch.sqrt(eps_a * eps_b), 0.5 * (sig_a + sig_b)


def prepare_lrc_types(system, potential):
    """Pairs of parameter types (i <= j) and how many interactions each pair stands for."""
    counts = system.type_counts
    n_types = counts.shape[0]
    idxs_i, idxs_j, n_ij = [], [], []
    for i in range(n_types):
        for j in range(i, n_types):
            idxs_i.append(i)
            idxs_j.append(j)
            n_ij.append(counts[i] * counts[j] if i != j else counts[i] * (counts[i] - 1) / 2)
    return torch.tensor(idxs_i), torch.tensor(idxs_j), torch.stack(n_ij)


def _integrate_lj_switch(
    r: torch.Tensor,
    rs: torch.Tensor,
    rc: torch.Tensor,
    sig: torch.Tensor,
) -> torch.Tensor:
    """Evaluate the intergral of the LJ potential multiplied by one minus the switching
    function (see the closed form in the docstring of the original)."""
    b = 1.0 / (rc - rs)

    coeff_0 = torch.stack([rs**3, rs**2, rs, torch.ones_like(rs), b, b**2]) * (
        torch.stack([rs**2 * b**2, rs * b, torch.ones_like(rs)])
        * tensor_like(
            [[6, 15, 10], [1, 2, 1], [2, 3, 1], [6, 6, 1], [0, 2, 1], [0, 0, 1]], rs
        )
    ).sum(dim=-1)

    coeff_01 = (
        sig[:, None] ** 6
        * tensor_like([-28, 945, -1080, 420, -756, 378], rs)
        * coeff_0
    )
    coeff_11 = tensor_like([84, -3780, 7560, 2520, -3780, 756], rs) * coeff_0

    r_pow = torch.pow(
        r, tensor_like([-9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2], rs)
    )
    r_pow[-3] = torch.log(r)

    integral = (
        -(b**3)
        * sig**6
        * (coeff_01 * r_pow[:6] + coeff_11 * r_pow[6:]).sum(dim=-1)
        / 252
    )

    return integral


def _compute_lj_lrc(system, potential, rs, rc, volume):
    """Computes the long range dispersion correction due to the LJ potential, possibly
    with a switching function."""

    idxs_i, idxs_j, n_ij_interactions = prepare_lrc_types(system, potential)

    eps_col = potential.parameter_cols.index("epsilon")
    sig_col = potential.parameter_cols.index("sigma")

    eps_ii, sig_ii = (
        potential.parameters[:, eps_col],
        potential.parameters[:, sig_col],
    )
    eps_ij, sig_ij = lorentz_berthelot(
        eps_ii[idxs_i], eps_ii[idxs_j], sig_ii[idxs_i], sig_ii[idxs_j]
    )

    if potential.exceptions is not None:
        exceptions = {
            **potential.exceptions,
            **{(j, i): idx for (i, j), idx in potential.exceptions.items()},
        }

        eps_ij, sig_ij = eps_ij.clone(), sig_ij.clone()  # prevent in-place modification

        for i, (idx_i, idx_j) in enumerate(zip(idxs_i, idxs_j, strict=True)):
            idx_i, idx_j = int(idx_i), int(idx_j)

            if (idx_i, idx_j) not in exceptions:
                continue

            param_idx = exceptions[(idx_i, idx_j)]

            eps_ij[i] = potential.parameters[param_idx, eps_col]
            sig_ij[i] = potential.parameters[param_idx, sig_col]

    integral = sig_ij**12 / (9 * rc**9) - sig_ij**6 / (3 * rc**3)

    if rs is not None:
        integral_rc = _integrate_lj_switch(rc, rs, rc, sig_ij)
        integral_rs = _integrate_lj_switch(rs, rs, rc, sig_ij)

        integral += integral_rc - integral_rs

    return (n_ij_interactions * 4.0 * eps_ij * integral).sum() * 2.0 * torch.pi / volume


def compute_lj_energy(system, potential, conformer, box_vectors):
    rc = potential.attributes[potential.attribute_cols.index("cutoff")]
    rs = rc - potential.attributes[potential.attribute_cols.index("switch_width")]
    volume = torch.det(box_vectors)
    # short-range part: all pairs inside the cutoff of one conformer (no switching here)
    eps_col = potential.parameter_cols.index("epsilon")
    sig_col = potential.parameter_cols.index("sigma")
    eps = potential.parameters[system.atom_types, eps_col]
    sig = potential.parameters[system.atom_types, sig_col]
    i, j = torch.triu_indices(len(system.atom_types), len(system.atom_types), 1)
    r = (conformer[i] - conformer[j]).norm(dim=-1)
    eps_ij, sig_ij = lorentz_berthelot(eps[i], eps[j], sig[i], sig[j])
    x = (sig_ij / r) ** 6
    energy = (4.0 * eps_ij * (x * x - x)).sum()
    return energy + _compute_lj_lrc(system, potential, rs, rc, volume)
