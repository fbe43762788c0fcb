"""VAIL's PPO update (train_actor_critic) on a small batch of collected transitions."""
import argparse

import numpy as np
import torch
import torch.optim as optim

from model import Actor, Critic
from train_model import train_actor_critic


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    args = argparse.Namespace(hidden_size=16, gamma=0.99, lamda=0.98, ppo_update_num=2,
                              batch_size=8, clip_param=0.2, learning_rate=3e-4, l2_rate=1e-3)
    num_inputs, num_actions = 5, 2
    actor = Actor(num_inputs, num_actions, args)
    critic = Critic(num_inputs, args)
    actor_optim = optim.Adam(actor.parameters(), lr=args.learning_rate)
    critic_optim = optim.Adam(critic.parameters(), lr=args.learning_rate,
                              weight_decay=args.l2_rate)

    memory = []
    for t in range(16):
        state = np.random.randn(num_inputs).astype(np.float32)
        action = np.random.randn(num_actions).astype(np.float32)
        reward = float(np.random.randn())
        mask = 0.0 if t == 15 else 1.0
        memory.append([state, action, reward, mask])
    memory_array = np.empty((len(memory), 4), dtype=object)
    for i, m in enumerate(memory):
        memory_array[i, :] = m

    actor.train(), critic.train()
    train_actor_critic(actor, critic, memory_array, actor_optim, critic_optim, args)

    out = {}
    for name, p in actor.named_parameters():
        out["actor." + name] = p.detach().clone()
        out["actor_grad." + name] = p.grad.clone()
    for name, p in critic.named_parameters():
        out["critic." + name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
