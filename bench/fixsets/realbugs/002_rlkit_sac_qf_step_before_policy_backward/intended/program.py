"""rlkit SAC, one short run of train_from_torch on replay batches (reduced).

In SACTrainer.train_from_torch the critics are stepped before
policy_loss.backward(), whose graph goes through qf1/qf2 (q_new_actions).
"""
import torch

from networks import FlattenMlp, TanhGaussianPolicy
from sac import SACTrainer

OBS_DIM = 4
ACTION_DIM = 2
M = 16


class ActionSpace(object):
    shape = (ACTION_DIM,)


class Env(object):
    action_space = ActionSpace()


def sample_batch(g, batch_size=8):
    return {
        'observations': torch.randn(batch_size, OBS_DIM, generator=g),
        'actions': torch.rand(batch_size, ACTION_DIM, generator=g) * 2 - 1,
        'rewards': torch.randn(batch_size, 1, generator=g),
        'terminals': (torch.rand(batch_size, 1, generator=g) < 0.1).float(),
        'next_observations': torch.randn(batch_size, OBS_DIM, generator=g),
    }


def main():
    torch.manual_seed(0)
    qf1 = FlattenMlp(input_size=OBS_DIM + ACTION_DIM, output_size=1, hidden_sizes=[M, M])
    qf2 = FlattenMlp(input_size=OBS_DIM + ACTION_DIM, output_size=1, hidden_sizes=[M, M])
    target_qf1 = FlattenMlp(input_size=OBS_DIM + ACTION_DIM, output_size=1, hidden_sizes=[M, M])
    target_qf2 = FlattenMlp(input_size=OBS_DIM + ACTION_DIM, output_size=1, hidden_sizes=[M, M])
    policy = TanhGaussianPolicy(obs_dim=OBS_DIM, action_dim=ACTION_DIM, hidden_sizes=[M, M])
    trainer = SACTrainer(
        env=Env(),
        policy=policy,
        qf1=qf1,
        qf2=qf2,
        target_qf1=target_qf1,
        target_qf2=target_qf2,
        discount=0.99,
        soft_target_tau=5e-3,
        target_update_period=1,
        policy_lr=3e-4,
        qf_lr=3e-4,
        reward_scale=1,
        use_automatic_entropy_tuning=True,
    )
    g = torch.Generator().manual_seed(1)
    stats = []
    for _ in range(3):
        trainer.train_from_torch(sample_batch(g))
        stats.append(dict(trainer.eval_statistics))
    return {
        'qf1_loss': [s['QF1 Loss'] for s in stats],
        'qf2_loss': [s['QF2 Loss'] for s in stats],
        'policy_loss': [s['Policy Loss'] for s in stats],
        'alpha': [s['Alpha'] for s in stats],
        'log_alpha': trainer.log_alpha.detach().clone(),
        'policy': [p.detach().clone() for p in policy.parameters()],
        'qf1': [p.detach().clone() for p in qf1.parameters()],
        'qf2': [p.detach().clone() for p in qf2.parameters()],
        'target_qf1': [p.detach().clone() for p in target_qf1.parameters()],
        'target_qf2': [p.detach().clone() for p in target_qf2.parameters()],
    }


if __name__ == "__main__":
    main()
