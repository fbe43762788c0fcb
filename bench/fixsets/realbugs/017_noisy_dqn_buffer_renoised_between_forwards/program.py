"""Deep RL Hands-On (2nd ed.), Chapter 10 stocks DQN: the user replaced the Linear layers of
DQNConv1DLarge by the book's NoisyLinear. calc_loss (double DQN) calls net() twice before
backward; every forward re-samples the noise buffers in place with normal_()."""
import collections
import copy

import torch
import torch.optim as optim

import models
import common

Experience = collections.namedtuple('Experience', ['state', 'action', 'reward', 'last_state'])

BATCH_SIZE = 8
BARS_COUNT = 10
GAMMA = 0.99
REWARD_STEPS = 2
LEARNING_RATE = 0.0001


def make_batch(shape, n_actions):
    batch = []
    for i in range(BATCH_SIZE):
        state = torch.randn(*shape).numpy()
        last_state = None if i % 4 == 3 else torch.randn(*shape).numpy()
        action = int(torch.randint(n_actions, ()).item())
        reward = float(torch.randn(()).item())
        batch.append(Experience(state, action, reward, last_state))
    return batch


def main():
    torch.manual_seed(0)
    shape = (5, BARS_COUNT * 2)
    n_actions = 3
    net = models.DQNConv1DLarge(shape, n_actions)
    tgt_net = copy.deepcopy(net)          # ptan.agent.TargetNet(net).target_model
    optimizer = optim.Adam(net.parameters(), lr=LEARNING_RATE)

    losses = []

    def process_batch(batch):
        optimizer.zero_grad()
        loss_v = common.calc_loss(batch, net, tgt_net, gamma=GAMMA ** REWARD_STEPS)
        loss_v.backward()
        optimizer.step()
        return loss_v.item()

    for iteration in range(3):
        losses.append(process_batch(make_batch(shape, n_actions)))
        if iteration == 1:
            tgt_net.load_state_dict(net.state_dict())    # tgt_net.sync()

    out = {'losses': losses}
    for name, p in net.named_parameters():
        out['param.' + name] = p.detach().clone()
        out['grad.' + name] = p.grad.detach().clone()
    for name, b in net.named_buffers():
        out['buffer.' + name] = b.detach().clone()
    return out


if __name__ == "__main__":
    main()
