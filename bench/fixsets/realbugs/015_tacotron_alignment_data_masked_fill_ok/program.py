"""Tacotron decoder (r9y9/tacotron_pytorch) trained with teacher forcing on a
padded batch, reduced: widths 256/128 -> 16/8, a GRU text encoder instead of
the CBHG, random mel targets, two Adam steps.
AttentionWrapper masks padded encoder steps with alignment.data.masked_fill_:
the scores are a Linear output nothing saved, and softmax then gives the
masked steps zero weight and zero gradient, so the .data write is harmless.
"""
import torch
from torch import nn
from torch.autograd import Variable

from attention import BahdanauAttention, AttentionWrapper, get_mask_from_lengths

H = 16
P = 8


class Prenet(nn.Module):
    def __init__(self, in_dim, sizes=[H, P]):
        super(Prenet, self).__init__()
        in_sizes = [in_dim] + sizes[:-1]
        self.layers = nn.ModuleList(
            [nn.Linear(in_size, out_size)
             for (in_size, out_size) in zip(in_sizes, sizes)])
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(0.5)

    def forward(self, inputs):
        for linear in self.layers:
            inputs = self.dropout(self.relu(linear(inputs)))
        return inputs


class Decoder(nn.Module):
    def __init__(self, in_dim, r):
        super(Decoder, self).__init__()
        self.in_dim = in_dim
        self.r = r
        self.prenet = Prenet(in_dim * r, sizes=[H, P])
        # (prenet_out + attention context) -> output
        self.attention_rnn = AttentionWrapper(
            nn.GRUCell(H + P, H),
            BahdanauAttention(H)
        )
        self.memory_layer = nn.Linear(H, H, bias=False)
        self.project_to_decoder_in = nn.Linear(2 * H, H)

        self.decoder_rnns = nn.ModuleList(
            [nn.GRUCell(H, H) for _ in range(2)])

        self.proj_to_mel = nn.Linear(H, in_dim * r)

    def forward(self, encoder_outputs, inputs=None, memory_lengths=None):
        B = encoder_outputs.size(0)

        processed_memory = self.memory_layer(encoder_outputs)
        if memory_lengths is not None:
            mask = get_mask_from_lengths(processed_memory, memory_lengths)
        else:
            mask = None

        # Grouping multiple frames if necessary
        if inputs.size(-1) == self.in_dim:
            inputs = inputs.view(B, inputs.size(1) // self.r, -1)
        assert inputs.size(-1) == self.in_dim * self.r
        T_decoder = inputs.size(1)

        # go frames
        initial_input = Variable(
            encoder_outputs.data.new(B, self.in_dim * self.r).zero_())

        # Init decoder states
        attention_rnn_hidden = Variable(
            encoder_outputs.data.new(B, H).zero_())
        decoder_rnn_hiddens = [Variable(
            encoder_outputs.data.new(B, H).zero_())
            for _ in range(len(self.decoder_rnns))]
        current_attention = Variable(
            encoder_outputs.data.new(B, H).zero_())

        # Time first (T_decoder, B, in_dim)
        inputs = inputs.transpose(0, 1)

        outputs = []
        alignments = []

        t = 0
        current_input = initial_input
        while True:
            if t > 0:
                current_input = inputs[t - 1]
            # Prenet
            current_input = self.prenet(current_input)

            # Attention RNN
            attention_rnn_hidden, current_attention, alignment = self.attention_rnn(
                current_input, current_attention, attention_rnn_hidden,
                encoder_outputs, processed_memory=processed_memory, mask=mask)

            # Concat RNN output and attention context vector
            decoder_input = self.project_to_decoder_in(
                torch.cat((attention_rnn_hidden, current_attention), -1))

            # Pass through the decoder RNNs
            for idx in range(len(self.decoder_rnns)):
                decoder_rnn_hiddens[idx] = self.decoder_rnns[idx](
                    decoder_input, decoder_rnn_hiddens[idx])
                # Residual connectinon
                decoder_input = decoder_rnn_hiddens[idx] + decoder_input

            output = decoder_input
            output = self.proj_to_mel(output)

            outputs += [output]
            alignments += [alignment]

            t += 1
            if t >= T_decoder:
                break

        # Back to batch first
        alignments = torch.stack(alignments).transpose(0, 1)
        outputs = torch.stack(outputs).transpose(0, 1).contiguous()

        return outputs, alignments


class Tacotron(nn.Module):
    def __init__(self, n_vocab, mel_dim=4, r=2):
        super(Tacotron, self).__init__()
        self.mel_dim = mel_dim
        self.embedding = nn.Embedding(n_vocab, H)
        self.embedding.weight.data.normal_(0, 0.3)
        self.encoder = nn.GRU(H, H // 2, batch_first=True, bidirectional=True)
        self.decoder = Decoder(mel_dim, r)

    def forward(self, inputs, targets=None, input_lengths=None):
        inputs = self.embedding(inputs)
        encoder_outputs, _ = self.encoder(inputs)
        mel_outputs, alignments = self.decoder(
            encoder_outputs, targets, memory_lengths=input_lengths)
        return mel_outputs.view(mel_outputs.size(0), -1, self.mel_dim), alignments


def main():
    torch.manual_seed(0)
    model = Tacotron(n_vocab=20)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(1)
    text = torch.randint(1, 20, (3, 7), generator=g)
    input_lengths = [7, 5, 3]
    for i, l in enumerate(input_lengths):
        text[i, l:] = 0
    mel = torch.rand(3, 6, 4, generator=g)
    criterion = nn.L1Loss()
    losses = []
    model.train()
    for _ in range(2):
        optimizer.zero_grad()
        mel_outputs, alignments = model(text, mel, input_lengths=input_lengths)
        loss = criterion(mel_outputs, mel)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {'losses': losses, 'alignments': alignments.detach().clone(),
            'params': [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
