# DDPG update loop from kashif/firedup fireup/algos/ddpg/ddpg.py (before commit b658ae5),
# reduced: the environment is replaced by a replay buffer filled with random transitions.
import numpy as np
import torch
import torch.nn.functional as F

import core


class ReplayBuffer:
    """
    A simple FIFO experience replay buffer for DDPG agents.
    """

    def __init__(self, obs_dim, act_dim, size):
        self.obs1_buf = np.zeros([size, obs_dim], dtype=np.float32)
        self.obs2_buf = np.zeros([size, obs_dim], dtype=np.float32)
        self.acts_buf = np.zeros([size, act_dim], dtype=np.float32)
        self.rews_buf = np.zeros(size, dtype=np.float32)
        self.done_buf = np.zeros(size, dtype=np.float32)
        self.ptr, self.size, self.max_size = 0, 0, size

    def store(self, obs, act, rew, next_obs, done):
        self.obs1_buf[self.ptr] = obs
        self.obs2_buf[self.ptr] = next_obs
        self.acts_buf[self.ptr] = act
        self.rews_buf[self.ptr] = rew
        self.done_buf[self.ptr] = done
        self.ptr = (self.ptr + 1) % self.max_size
        self.size = min(self.size + 1, self.max_size)

    def sample_batch(self, batch_size=32):
        idxs = np.random.randint(0, self.size, size=batch_size)
        return dict(
            obs1=self.obs1_buf[idxs],
            obs2=self.obs2_buf[idxs],
            acts=self.acts_buf[idxs],
            rews=self.rews_buf[idxs],
            done=self.done_buf[idxs],
        )


def ddpg(actor_critic=core.ActorCritic, ac_kwargs=dict(), seed=0, replay_size=64,
         gamma=0.99, polyak=0.995, pi_lr=1e-3, q_lr=1e-3, batch_size=8, n_updates=2):
    torch.manual_seed(seed)
    np.random.seed(seed)

    obs_dim, act_dim = 3, 1
    ac_kwargs["action_space"] = core.Box(-2.0, 2.0, (act_dim,))

    # Main outputs from computation graph
    main = actor_critic(in_features=obs_dim, **ac_kwargs)

    # Target networks
    target = actor_critic(in_features=obs_dim, **ac_kwargs)
    target.eval()

    # Experience buffer
    replay_buffer = ReplayBuffer(obs_dim=obs_dim, act_dim=act_dim, size=replay_size)
    for _ in range(replay_size):
        replay_buffer.store(np.random.randn(obs_dim), np.random.uniform(-2, 2, act_dim),
                            np.random.randn(), np.random.randn(obs_dim), 0.0)

    # Separate train ops for pi, q
    pi_optimizer = torch.optim.Adam(main.policy.parameters(), lr=pi_lr)
    q_optimizer = torch.optim.Adam(main.q.parameters(), lr=q_lr)

    # Initializing targets to match main variables
    target.load_state_dict(main.state_dict())

    main.train()
    losses_q, losses_pi = [], []
    for _ in range(n_updates):
        batch = replay_buffer.sample_batch(batch_size)
        (obs1, obs2, acts, rews, done) = (
            torch.Tensor(batch["obs1"]),
            torch.Tensor(batch["obs2"]),
            torch.Tensor(batch["acts"]),
            torch.Tensor(batch["rews"]),
            torch.Tensor(batch["done"]),
        )
        _, q, q_pi = main(obs1, acts)
        _, _, q_pi_targ = target(obs2, acts)

        # Bellman backup for Q function
        backup = (rews + gamma * (1 - done) * q_pi_targ).detach()

        # DDPG losses
        pi_loss = -q_pi.mean()
        q_loss = F.mse_loss(q, backup)

        # Q-learning update
        q_optimizer.zero_grad()
        q_loss.backward()
        q_optimizer.step()
        losses_q.append(q_loss.detach())

        # Policy update
        pi_optimizer.zero_grad()
        pi_loss.backward()
        pi_optimizer.step()
        losses_pi.append(pi_loss.detach())

        # Polyak averaging for target parameters
        for p_main, p_target in zip(main.parameters(), target.parameters()):
            p_target.data.copy_(
                polyak * p_target.data + (1 - polyak) * p_main.data
            )

    return main, target, losses_q, losses_pi


def main():
    torch.manual_seed(0)
    ac, targ, losses_q, losses_pi = ddpg(ac_kwargs=dict(hidden_sizes=(16, 16)))
    out = {"loss_q": losses_q, "loss_pi": losses_pi}
    for n, p in ac.named_parameters():
        out["main." + n] = p.detach().clone()
    for n, p in targ.named_parameters():
        out["target." + n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
