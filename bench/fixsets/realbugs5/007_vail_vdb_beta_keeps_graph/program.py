"""VAIL discriminator (VDB) update with the adaptive bottleneck weight beta."""
import argparse

import numpy as np
import torch
import torch.optim as optim

from model import VDB
from train_model import train_vdb


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    args = argparse.Namespace(hidden_size=32, z_size=8, learning_rate=3e-4, l2_rate=1e-3,
                              alpha_beta=1e-4, i_c=0.5, vdb_update_num=3)
    num_inputs, num_actions = 11, 3
    vdb = VDB(num_inputs + num_actions, args)
    vdb_optim = optim.Adam(vdb.parameters(), lr=args.learning_rate, weight_decay=args.l2_rate)

    memory = np.empty((16, 2), dtype=object)
    for t in range(16):
        memory[t, 0] = (np.random.randn(num_inputs) * 3).astype(np.float32)
        memory[t, 1] = np.random.randn(num_actions).astype(np.float32)
    demonstrations = (np.random.randn(16, num_inputs + num_actions) * 3).astype(np.float32)

    expert_acc, learner_acc = train_vdb(vdb, memory, vdb_optim, demonstrations, 0, args)

    out = {"expert_acc": expert_acc, "learner_acc": learner_acc}
    for name, p in vdb.named_parameters():
        out["vdb." + name] = p.detach().clone()
        out["vdb_grad." + name] = p.grad.clone()
    return out


if __name__ == "__main__":
    main()
