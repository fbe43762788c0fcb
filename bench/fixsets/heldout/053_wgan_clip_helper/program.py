import torch
import torch.nn as nn


def clip_weights(model, c):
    with torch.no_grad():
        for p in model.parameters():
            p.clamp_(-c, c)


def make_critic(d_in):
    return nn.Sequential(nn.Linear(d_in, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))


def make_generator(z_dim, d_out):
    return nn.Sequential(nn.Linear(z_dim, 16), nn.ReLU(), nn.Linear(16, d_out), nn.Tanh())


def main():
    torch.manual_seed(0)
    z_dim, d = 3, 5
    critic, gen = make_critic(d), make_generator(z_dim, d)
    c_opt = torch.optim.RMSprop(critic.parameters(), lr=1e-3)
    g_opt = torch.optim.RMSprop(gen.parameters(), lr=1e-3)
    data = torch.tanh(torch.randn(128, d))

    hist = {"critic": [], "gen": []}
    for step in range(4):
        batch = data[step * 32:(step + 1) * 32]
        fake = gen(torch.randn(32, z_dim))
        critic_loss = critic(fake.detach()).mean() - critic(batch).mean()
        clip_weights(critic, 0.02)
        c_opt.zero_grad()
        critic_loss.backward()
        c_opt.step()
        hist["critic"].append(critic_loss.item())

        if step % 2 == 1:
            gen_loss = -critic(gen(torch.randn(32, z_dim))).mean()
            g_opt.zero_grad()
            gen_loss.backward()
            g_opt.step()
            hist["gen"].append(gen_loss.item())

    hist["critic_params"] = [p.detach().clone() for p in critic.parameters()]
    hist["gen_params"] = [p.detach().clone() for p in gen.parameters()]
    return hist


if __name__ == "__main__":
    main()
