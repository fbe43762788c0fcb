import torch

from model import GPTConfig, GPT


def main():
    torch.manual_seed(0)
    config = GPTConfig()
    model = GPT(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randint(0, config.vocab_size, (64,))
    losses = []
    for it in range(2):
        ix = torch.randint(len(data) - config.block_size, (2,))
        X = torch.stack([data[i:i + config.block_size] for i in ix])
        Y = torch.stack([data[i + 1:i + 1 + config.block_size] for i in ix])
        logits, loss = model(X, Y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    out = {"losses": losses}
    for n, p in model.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
