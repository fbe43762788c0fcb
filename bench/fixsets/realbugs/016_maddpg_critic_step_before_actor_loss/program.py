"""MADDPG training step (starry-sky6688/MADDPG, issue #27): the user moved the critic
update before the actor update; the actor loss was built through the critic before the
critic's optimizer step modified the critic weights in place."""
from types import SimpleNamespace

import torch

from maddpg import MADDPG


class Agent:
    def __init__(self, agent_id, args):
        self.args = args
        self.agent_id = agent_id
        self.policy = MADDPG(args, agent_id)

    def learn(self, transitions, other_agents):
        self.policy.train(transitions, other_agents)


def sample_transitions(args, batch_size):
    transitions = {}
    for i in range(args.n_agents):
        transitions['o_%d' % i] = torch.randn(batch_size, args.obs_shape[i]).numpy()
        transitions['u_%d' % i] = torch.rand(batch_size, args.action_shape[i]).mul(2).sub(1).numpy()
        transitions['r_%d' % i] = torch.randn(batch_size).numpy()
        transitions['o_next_%d' % i] = torch.randn(batch_size, args.obs_shape[i]).numpy()
    return transitions


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(n_agents=2, obs_shape=[6, 6], action_shape=[2, 2], high_action=1.0,
                           lr_actor=1e-3, lr_critic=1e-3, gamma=0.95, tau=0.01, batch_size=8)
    agents = [Agent(i, args) for i in range(args.n_agents)]
    for train_step in range(2):
        transitions = sample_transitions(args, args.batch_size)
        for agent in agents:
            other_agents = agents.copy()
            other_agents.remove(agent)
            agent.learn(dict(transitions), other_agents)

    out = {}
    for agent in agents:
        pol = agent.policy
        out['q_loss_%d' % agent.agent_id] = pol.q_loss.detach()
        out['a_loss_%d' % agent.agent_id] = pol.a_loss.detach()
        for name, p in pol.actor_network.named_parameters():
            out['actor%d.%s' % (agent.agent_id, name)] = p.detach().clone()
        for name, p in pol.critic_network.named_parameters():
            out['critic%d.%s' % (agent.agent_id, name)] = p.detach().clone()
        for name, p in pol.critic_target_network.named_parameters():
            out['critic_target%d.%s' % (agent.agent_id, name)] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
