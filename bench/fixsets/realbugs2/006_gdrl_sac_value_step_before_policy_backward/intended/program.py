"""gdrl SAC (mimoralea/gdrl, issue #13): optimize_model() steps both online Q
networks before policy_loss.backward(); policy_loss was built through those Q
networks (current_q_sa), so the backward meets Q weights rewritten in place."""
import torch

from sac import SAC


def main():
    torch.manual_seed(0)
    nS = 3
    action_bounds = ([-2.0], [2.0])
    agent = SAC(nS, action_bounds)
    batch_size = 8
    logs = []
    for step in range(2):
        states = torch.randn(batch_size, nS)
        actions = torch.rand(batch_size, 1) * 4 - 2
        rewards = torch.randn(batch_size, 1)
        next_states = torch.randn(batch_size, nS)
        is_terminals = (torch.rand(batch_size, 1) > 0.9).float()
        logs.append(agent.optimize_model((states, actions, rewards, next_states, is_terminals)))
        if step % agent.update_target_every_steps == 0:
            agent.update_value_networks()
    out = {"policy_loss": [l[0] for l in logs], "qa_loss": [l[1] for l in logs],
           "qb_loss": [l[2] for l in logs], "alpha_loss": [l[3] for l in logs],
           "logalpha": agent.policy_model.logalpha.detach().clone()}
    for prefix, m in (("pi", agent.policy_model), ("qa", agent.online_value_model_a),
                      ("qb", agent.online_value_model_b), ("ta", agent.target_value_model_a),
                      ("tb", agent.target_value_model_b)):
        for name, p in m.named_parameters():
            out[prefix + "." + name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
