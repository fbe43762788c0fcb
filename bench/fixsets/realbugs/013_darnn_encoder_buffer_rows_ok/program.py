"""da-rnn main.py training (Seanny123/da-rnn), reduced: a synthetic series
instead of the NASDAQ-100 csv, no sklearn scaling, plots or checkpoints.
The Encoder fills preallocated input_weighted / input_encoded buffers row by
row; nothing autograd saved lives in those buffers, so the writes are safe.
"""
import collections
import typing

import numpy as np
import torch
from torch import nn
from torch import optim
from torch.autograd import Variable

from modules import Encoder, Decoder

device = torch.device("cpu")
DaRnnNet = collections.namedtuple("DaRnnNet", ["encoder", "decoder", "enc_opt", "dec_opt"])
TrainConfig = collections.namedtuple("TrainConfig", ["T", "train_size", "batch_size", "loss_func"])
TrainData = collections.namedtuple("TrainData", ["feats", "targs"])


def numpy_to_tvar(x):
    return Variable(torch.from_numpy(x).type(torch.FloatTensor).to(device))


def da_rnn(train_data: TrainData, n_targs: int, encoder_hidden_size=64, decoder_hidden_size=64,
           T=10, learning_rate=0.01, batch_size=128):

    train_cfg = TrainConfig(T, int(train_data.feats.shape[0] * 0.7), batch_size, nn.MSELoss())

    enc_kwargs = {"input_size": train_data.feats.shape[1], "hidden_size": encoder_hidden_size, "T": T}
    encoder = Encoder(**enc_kwargs).to(device)

    dec_kwargs = {"encoder_hidden_size": encoder_hidden_size,
                  "decoder_hidden_size": decoder_hidden_size, "T": T, "out_feats": n_targs}
    decoder = Decoder(**dec_kwargs).to(device)

    encoder_optimizer = optim.Adam(
        params=[p for p in encoder.parameters() if p.requires_grad],
        lr=learning_rate)
    decoder_optimizer = optim.Adam(
        params=[p for p in decoder.parameters() if p.requires_grad],
        lr=learning_rate)
    da_rnn_net = DaRnnNet(encoder, decoder, encoder_optimizer, decoder_optimizer)

    return train_cfg, da_rnn_net


def prep_train_data(batch_idx: np.ndarray, t_cfg: TrainConfig, train_data: TrainData):
    feats = np.zeros((len(batch_idx), t_cfg.T - 1, train_data.feats.shape[1]))
    y_history = np.zeros((len(batch_idx), t_cfg.T - 1, train_data.targs.shape[1]))
    y_target = train_data.targs[batch_idx + t_cfg.T]

    for b_i, b_idx in enumerate(batch_idx):
        b_slc = slice(b_idx, b_idx + t_cfg.T - 1)
        feats[b_i, :, :] = train_data.feats[b_slc, :]
        y_history[b_i, :] = train_data.targs[b_slc]

    return feats, y_history, y_target


def train_iteration(t_net: DaRnnNet, loss_func: typing.Callable, X, y_history, y_target):
    t_net.enc_opt.zero_grad()
    t_net.dec_opt.zero_grad()

    input_weighted, input_encoded = t_net.encoder(numpy_to_tvar(X))
    y_pred = t_net.decoder(input_encoded, numpy_to_tvar(y_history))

    y_true = numpy_to_tvar(y_target)
    loss = loss_func(y_pred, y_true)
    loss.backward()

    t_net.enc_opt.step()
    t_net.dec_opt.step()

    return loss.item()


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    n = 60
    t = np.arange(n)
    feats = np.stack([np.sin(t / (k + 2.0)) for k in range(4)], axis=1) + 0.05 * np.random.randn(n, 4)
    targs = (feats.sum(axis=1, keepdims=True) / 4.0)
    data = TrainData(feats, targs)

    config, model = da_rnn(data, n_targs=1, encoder_hidden_size=8, decoder_hidden_size=8,
                           T=6, learning_rate=.001, batch_size=8)
    perm_idx = np.random.permutation(config.train_size - config.T)
    losses = []
    for t_i in range(0, 24, config.batch_size):
        batch_idx = perm_idx[t_i:(t_i + config.batch_size)]
        feats_b, y_history, y_target = prep_train_data(batch_idx, config, data)
        losses.append(train_iteration(model, config.loss_func, feats_b, y_history, y_target))

    return {
        'losses': losses,
        'encoder': [p.detach().clone() for p in model.encoder.parameters()],
        'decoder': [p.detach().clone() for p in model.decoder.parameters()],
    }


if __name__ == "__main__":
    main()
