# DocumentEncoder of shayneobrien/coreference-resolution (src/coref.py), reduced: the GloVe and
# Turian tables are small random frozen embeddings, the CharCNN is a tiny conv over character ids,
# and the mention scorer is a single Score MLP over the LSTM states of each sentence token.
import torch
import torch.nn as nn
import torch.nn.functional as F

from utils import pack, unpack_and_unpad


class CharCNN(nn.Module):
    """ Character-level CNN. Contains character embeddings. """

    def __init__(self, filters, char_dim=8, n_chars=30):
        super().__init__()
        self.embeddings = nn.Embedding(n_chars, char_dim, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv2d(in_channels=1, out_channels=filters,
                                              kernel_size=(n, char_dim)) for n in (3, 4, 5)])
        self.cnn_dropout = nn.Dropout(0.2)

    def forward(self, sent_chars):
        """ Compute filter-dimensional character-level features for each doc token """
        embedded = self.embeddings(sent_chars).unsqueeze(1)          # tokens x 1 x L x D
        convolved = torch.cat([F.relu(conv(embedded)) for conv in self.convs], dim=2)
        pooled = F.max_pool1d(convolved.squeeze(-1), convolved.shape[2]).squeeze(-1)
        return self.cnn_dropout(pooled)


class DocumentEncoder(nn.Module):
    """ Document encoder for tokens """

    def __init__(self, hidden_dim, char_filters, n_layers=2, vocab=20, glove_dim=6, turian_dim=4):
        super().__init__()

        # Unit vector embeddings as per Section 7.1 of paper
        glove_weights = F.normalize(torch.randn(vocab, glove_dim))
        turian_weights = F.normalize(torch.randn(vocab, turian_dim))

        # GLoVE
        self.glove = nn.Embedding(glove_weights.shape[0], glove_weights.shape[1])
        self.glove.weight.data.copy_(glove_weights)
        self.glove.weight.requires_grad = False

        # Turian
        self.turian = nn.Embedding(turian_weights.shape[0], turian_weights.shape[1])
        self.turian.weight.data.copy_(turian_weights)
        self.turian.weight.requires_grad = False

        # Character
        self.char_embeddings = CharCNN(char_filters)

        # Sentence-LSTM
        self.lstm = nn.LSTM(glove_weights.shape[1]+turian_weights.shape[1]+char_filters,
                            hidden_dim,
                            num_layers=n_layers,
                            bidirectional=True,
                            batch_first=True)

        # Dropout
        self.emb_dropout = nn.Dropout(0.50, inplace=True)
        self.lstm_dropout = nn.Dropout(0.20, inplace=True)

    def forward(self, doc):
        """ Convert document words to ids, embed them, pass through LSTM. """

        # Embed document
        embeds = [self.embed(s) for s in doc]

        # Batch for LSTM
        packed, reorder = pack(embeds)

        # Apply embedding dropout
        self.emb_dropout(packed[0])

        # Pass an LSTM over the embeds
        output, _ = self.lstm(packed)

        # Apply dropout
        self.lstm_dropout(output[0])

        # Undo the packing/padding required for batching
        states = unpack_and_unpad(output, reorder)

        return torch.cat(states, dim=0), torch.cat(embeds, dim=0)

    def embed(self, sent):
        """ Embed a sentence using GLoVE, Turian, and character embeddings """
        word_ids, char_ids = sent

        # Embed the tokens with Glove
        glove_embeds = self.glove(word_ids)

        # Embed again using Turian this time
        tur_embeds = self.turian(word_ids)

        # Character embeddings
        char_embeds = self.char_embeddings(char_ids)

        # Concatenate them all together
        embeds = torch.cat((glove_embeds, tur_embeds, char_embeds), dim=1)

        return embeds


class Score(nn.Module):
    """ Generic scoring module """

    def __init__(self, embeds_dim, hidden_dim=16):
        super().__init__()
        self.score = nn.Sequential(
            nn.Linear(embeds_dim, hidden_dim),
            nn.ReLU(),
            nn.Dropout(0.20),
            nn.Linear(hidden_dim, hidden_dim),
            nn.ReLU(),
            nn.Dropout(0.20),
            nn.Linear(hidden_dim, 1)
        )

    def forward(self, x):
        """ Output a scalar score for an input x """
        return self.score(x)


def main():
    torch.manual_seed(0)
    encoder = DocumentEncoder(hidden_dim=5, char_filters=3)
    scorer = Score(2 * 5)
    params = [p for m in (encoder, scorer) for p in m.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=1e-3)

    # a document of three sentences: (word ids, char ids padded to 6 characters)
    doc = []
    for n_tokens in (4, 6, 3):
        doc.append((torch.randint(1, 20, (n_tokens,)), torch.randint(1, 30, (n_tokens, 6))))
    gold = torch.tensor([1., 0., 0., 1., 0., 0., 1., 0., 1., 0., 0., 1., 0.]).unsqueeze(1)

    encoder.train()
    scorer.train()
    optimizer.zero_grad()
    states, embeds = encoder(doc)
    mention_scores = scorer(states)
    loss = F.binary_cross_entropy_with_logits(mention_scores, gold)
    loss.backward()
    out = {"mention_scores": mention_scores.detach(), "loss": loss.detach()}
    named = [("encoder." + n, p) for n, p in encoder.named_parameters()] + \
            [("scorer." + n, p) for n, p in scorer.named_parameters()]
    for n, p in named:
        if p.requires_grad:
            out["grad_" + n] = p.grad.clone()
    optimizer.step()
    for n, p in named:
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
