"""REDQ-SAC: fill the replay buffer with random transitions, then run one round of updates."""
import numpy as np
import torch

from redq_sac import REDQSACAgent


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    obs_dim, act_dim = 4, 2
    agent = REDQSACAgent(obs_dim, act_dim, act_limit=1.0, device='cpu',
                         hidden_sizes=(16, 16), replay_size=64, batch_size=8,
                         utd_ratio=2, num_Q=3, num_min=2, policy_update_delay=20)
    for _ in range(32):
        o = np.random.randn(obs_dim)
        a = np.random.uniform(-1, 1, act_dim)
        r = np.random.randn()
        o2 = np.random.randn(obs_dim)
        agent.store_data(o, a, r, o2, 0.0)

    logger = {}
    agent.train(logger)

    out = dict(logger)
    out["log_alpha"] = agent.log_alpha.detach().clone()
    out["grad.log_alpha"] = agent.log_alpha.grad.clone()
    for name, p in agent.policy_net.named_parameters():
        out["policy." + name] = p.detach().clone()
        out["policy_grad." + name] = p.grad.clone()
    for i, q_net in enumerate(agent.q_net_list):
        for name, p in q_net.named_parameters():
            out["q%d.%s" % (i, name)] = p.detach().clone()
    for i, q_net in enumerate(agent.q_target_net_list):
        for name, p in q_net.named_parameters():
            out["q_target%d.%s" % (i, name)] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
