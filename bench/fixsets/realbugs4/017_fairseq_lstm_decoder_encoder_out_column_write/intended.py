"""fairseq LSTM encoder/decoder (fairseq/models/lstm.py shape: LSTMEncoder, AttentionLayer,
LSTMDecoder) with the user's edit from fairseq#251: at decode time each feature column of
encoder_out is rewritten in place (encoder_out[0][:, :, j] = do_something(...))."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LSTMEncoder(nn.Module):
    def __init__(self, num_embeddings, embed_dim=8, hidden_size=8):
        super().__init__()
        self.embed_tokens = nn.Embedding(num_embeddings, embed_dim, padding_idx=0)
        self.lstm = nn.LSTM(input_size=embed_dim, hidden_size=hidden_size)
        self.output_units = hidden_size

    def forward(self, src_tokens):
        bsz, seqlen = src_tokens.size()
        x = self.embed_tokens(src_tokens)
        x = x.transpose(0, 1)  # B x T x C -> T x B x C
        x, (final_hiddens, final_cells) = self.lstm(x)
        return x, final_hiddens, final_cells


class AttentionLayer(nn.Module):
    def __init__(self, input_embed_dim, output_embed_dim):
        super().__init__()
        self.input_proj = nn.Linear(input_embed_dim, output_embed_dim, bias=False)
        self.output_proj = nn.Linear(input_embed_dim + output_embed_dim, output_embed_dim, bias=False)

    def forward(self, input, source_hids):
        # input: bsz x input_embed_dim
        # source_hids: srclen x bsz x output_embed_dim
        x = self.input_proj(input)
        # compute attention
        attn_scores = (source_hids * x.unsqueeze(0)).sum(dim=2)
        attn_scores = F.softmax(attn_scores, dim=0)  # srclen x bsz
        # sum weighted sources
        x = (attn_scores.unsqueeze(2) * source_hids).sum(dim=0)
        x = torch.tanh(self.output_proj(torch.cat((x, input), dim=1)))
        return x, attn_scores


def do_something(column):
    # the user's per-feature rescaling of the encoder states
    return torch.tanh(column) * 0.5


class LSTMDecoder(nn.Module):
    def __init__(self, num_embeddings, embed_dim=8, hidden_size=8, encoder_output_units=8):
        super().__init__()
        self.embed_tokens = nn.Embedding(num_embeddings, embed_dim, padding_idx=0)
        self.layer = nn.LSTMCell(input_size=hidden_size + embed_dim, hidden_size=hidden_size)
        self.attention = AttentionLayer(hidden_size, encoder_output_units)
        self.fc_out = nn.Linear(hidden_size, num_embeddings)
        self.hidden_size = hidden_size

    def forward(self, prev_output_tokens, encoder_out):
        bsz, seqlen = prev_output_tokens.size()
        encoder_outs, encoder_hiddens, encoder_cells = encoder_out[:3]
        x = self.embed_tokens(prev_output_tokens).transpose(0, 1)
        hidden, cell = encoder_hiddens[-1], encoder_cells[-1]
        input_feed = x.new_zeros(bsz, self.hidden_size)
        outs = []
        for step in range(seqlen):
            input = torch.cat((x[step, :, :], input_feed), dim=1)
            hidden, cell = self.layer(input, (hidden, cell))
            out, attn = self.attention(hidden, encoder_outs)
            input_feed = out
            outs.append(out)
            if step == 0:
                # change the encoder output at decode time (fairseq#251)
                new_encoder_outs = encoder_out[0].clone()
                for j in range(new_encoder_outs.size(2)):
                    new_encoder_outs[:, :, j] = do_something(new_encoder_outs[:, :, j])
                encoder_outs = new_encoder_outs
        x = torch.stack(outs, dim=1)
        return self.fc_out(x)


def main():
    torch.manual_seed(0)
    vocab = 12
    encoder, decoder = LSTMEncoder(vocab), LSTMDecoder(vocab)
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.SGD(params, lr=0.5)
    src = torch.randint(1, vocab, (2, 5))
    prev = torch.randint(1, vocab, (2, 4))
    tgt = torch.randint(1, vocab, (2, 4))
    optimizer.zero_grad()
    encoder_out = encoder(src)
    logits = decoder(prev, encoder_out)
    loss = F.cross_entropy(logits.reshape(-1, vocab), tgt.reshape(-1))
    loss.backward()
    optimizer.step()
    return {"loss": loss.detach(), "logits": logits.detach(),
            "enc_lstm_w": encoder.lstm.weight_hh_l0.detach().clone(),
            "attn_in": decoder.attention.input_proj.weight.detach().clone()}


if __name__ == "__main__":
    main()
