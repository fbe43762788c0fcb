"""A sequence classifier built from kaniblu/pytorch-models modules (rnn.LSTM over padded sequences with
lengths, MeanPooling, Linear), trained for a few Adam steps like the package's ModuleTester.test_backward."""
import torch
import torch.nn as nn
import torch.nn.functional as tfunc

import common
from pooling import MeanPooling
from rnn import LSTM


class SequenceClassifier(nn.Module):

    def __init__(self, input_dim, hidden_dim, num_classes):
        super(SequenceClassifier, self).__init__()
        self.rnn = LSTM(input_dim, hidden_dim, dynamic=False, layers=1, dropout=0)
        self.pool = MeanPooling(hidden_dim)
        self.output = common.Linear(hidden_dim, num_classes)

    def reset_parameters(self):
        self.rnn.reset_parameters()
        self.output.reset_parameters()

    def forward(self, x, lens):
        o, c, h = self.rnn(x, lens)
        return self.output(self.pool(o, lens))


def main():
    torch.manual_seed(0)
    batch_size, max_len, input_dim = 4, 6, 5
    model = SequenceClassifier(input_dim, 8, 2)
    model.reset_parameters()
    op = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(3):
        op.zero_grad()
        data = torch.randint(0, 2, (batch_size, max_len, input_dim)).float()
        lens = torch.randint(2, max_len + 1, (batch_size,)).long()
        loss = tfunc.cross_entropy(model(data, lens), data[:, 0, 0].long())
        loss.backward()
        losses.append(loss.item())
        op.step()
    return {"losses": losses,
            "w_ih": model.rnn.lstm.weight_ih_l0.detach().clone(),
            "w_hh": model.rnn.lstm.weight_hh_l0.detach().clone(),
            "out_w": model.output.weight.detach().clone()}


if __name__ == "__main__":
    main()
