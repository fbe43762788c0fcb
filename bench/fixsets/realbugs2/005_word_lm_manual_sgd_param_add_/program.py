"""pytorch/examples word_language_model (PR #779): the hand-written SGD update
`p.add_(-lr, p.grad)` runs with grad mode on, on leaf Parameters that require grad."""
import argparse

import torch
import torch.nn as nn

import model as model_lib


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def train(args, model, train_data, ntokens, criterion, lr):
    model.train()
    losses = []
    hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        # Starting each batch, we detach the hidden state from how it was previously produced.
        # If we didn't, the model would try backpropagating all the way to start of the dataset.
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()

        # `clip_grad_norm` helps prevent the exploding gradient problem in RNNs / LSTMs.
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        for p in model.parameters():
            p.add_(-lr, p.grad)

        losses.append(loss.detach())
    return losses


def main():
    torch.manual_seed(0)
    parser = argparse.ArgumentParser(description='PyTorch Wikitext-2 RNN/LSTM Language Model')
    parser.add_argument('--model', type=str, default='LSTM')
    parser.add_argument('--emsize', type=int, default=8)
    parser.add_argument('--nhid', type=int, default=8)
    parser.add_argument('--nlayers', type=int, default=2)
    parser.add_argument('--lr', type=float, default=20)
    parser.add_argument('--clip', type=float, default=0.25)
    parser.add_argument('--batch_size', type=int, default=4)
    parser.add_argument('--bptt', type=int, default=5)
    parser.add_argument('--dropout', type=float, default=0.2)
    args = parser.parse_args([])

    ntokens = 12
    corpus_ids = torch.randint(0, ntokens, (64,))
    train_data = batchify(corpus_ids, args.batch_size)
    model = model_lib.RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout)
    criterion = nn.NLLLoss()
    losses = train(args, model, train_data, ntokens, criterion, args.lr)
    out = {"losses": losses}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
