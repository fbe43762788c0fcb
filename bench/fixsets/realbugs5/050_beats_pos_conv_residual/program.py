# BEATs audio pre-training model (microsoft/unilm beats/BEATs.py), reduced: a fine-tuning step
# on filter-bank features with a padding mask. The positional-convolution residual lives in
# backbone.py (TransformerEncoder.extract_features).
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import LayerNorm

from backbone import TransformerEncoder

warnings.filterwarnings("ignore", category=FutureWarning)


class BEATsConfig:
    def __init__(self, cfg=None):
        self.input_patch_size: int = 4
        self.embed_dim: int = 8
        self.conv_bias: bool = False

        self.encoder_layers: int = 1
        self.encoder_embed_dim: int = 16
        self.encoder_ffn_embed_dim: int = 32
        self.encoder_attention_heads: int = 2
        self.activation_fn: str = "gelu"

        self.layer_wise_gradient_decay_ratio: float = 1.0
        self.layer_norm_first: bool = False
        self.deep_norm: bool = False

        self.dropout: float = 0.0
        self.attention_dropout: float = 0.0
        self.activation_dropout: float = 0.0
        self.encoder_layerdrop: float = 0.0
        self.dropout_input: float = 0.0

        self.conv_pos: int = 4
        self.conv_pos_groups: int = 4

        self.finetuned_model: bool = True
        self.predictor_dropout: float = 0.0
        self.predictor_class: int = 3

        if cfg is not None:
            self.update(cfg)

    def update(self, cfg: dict):
        self.__dict__.update(cfg)


class BEATs(nn.Module):
    def __init__(self, cfg: BEATsConfig) -> None:
        super().__init__()
        self.cfg = cfg

        self.embed = cfg.embed_dim
        self.post_extract_proj = (
            nn.Linear(self.embed, cfg.encoder_embed_dim)
            if self.embed != cfg.encoder_embed_dim
            else None
        )

        self.input_patch_size = cfg.input_patch_size
        self.patch_embedding = nn.Conv2d(1, self.embed, kernel_size=self.input_patch_size,
                                         stride=self.input_patch_size, bias=cfg.conv_bias)

        self.dropout_input = nn.Dropout(cfg.dropout_input)

        assert not cfg.deep_norm or not cfg.layer_norm_first
        self.encoder = TransformerEncoder(cfg)
        self.layer_norm = LayerNorm(self.embed)

        if cfg.finetuned_model:
            self.predictor_dropout = nn.Dropout(cfg.predictor_dropout)
            self.predictor = nn.Linear(cfg.encoder_embed_dim, cfg.predictor_class)
        else:
            self.predictor = None

    def forward_padding_mask(self, features, padding_mask):
        extra = padding_mask.size(1) % features.size(1)
        if extra > 0:
            padding_mask = padding_mask[:, :-extra]
        padding_mask = padding_mask.view(padding_mask.size(0), features.size(1), -1)
        padding_mask = padding_mask.all(-1)
        return padding_mask

    def extract_features(self, fbank, padding_mask=None):
        fbank = fbank.unsqueeze(1)
        features = self.patch_embedding(fbank)
        features = features.reshape(features.shape[0], features.shape[1], -1)
        features = features.transpose(1, 2)
        features = self.layer_norm(features)

        if padding_mask is not None:
            padding_mask = self.forward_padding_mask(features, padding_mask)

        if self.post_extract_proj is not None:
            features = self.post_extract_proj(features)

        x = self.dropout_input(features)

        x, layer_results = self.encoder(x, padding_mask=padding_mask)

        if self.predictor is not None:
            x = self.predictor_dropout(x)
            logits = self.predictor(x)

            if padding_mask is not None and padding_mask.any():
                logits[padding_mask] = 0
                logits = logits.sum(dim=1)
                logits = logits / (~padding_mask).sum(dim=1).unsqueeze(-1).expand_as(logits)
            else:
                logits = logits.mean(dim=1)

            lprobs = torch.sigmoid(logits)
            return lprobs, padding_mask
        else:
            return x, padding_mask


def main():
    torch.manual_seed(0)
    cfg = BEATsConfig()
    model = BEATs(cfg)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    fbank = torch.randn(2, 16, 8)          # (batch, frames, mel bins)
    padding_mask = torch.zeros(2, 64, dtype=torch.bool)
    padding_mask[1, 48:] = True             # second clip is shorter
    target = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])

    lprobs, _ = model.extract_features(fbank, padding_mask=padding_mask)
    loss = F.binary_cross_entropy(lprobs, target)
    opt.zero_grad()
    loss.backward()
    grads = {"grad_" + n: p.grad.clone() for n, p in model.named_parameters()
             if n in ("patch_embedding.weight", "post_extract_proj.weight",
                      "encoder.pos_conv.0.weight_g", "encoder.pos_conv.0.weight_v",
                      "predictor.weight")}
    opt.step()

    out = {"lprobs": lprobs.detach(), "loss": loss.detach()}
    out.update(grads)
    out["post_extract_proj.weight"] = model.post_extract_proj.weight.detach().clone()
    out["pos_conv.weight_v"] = model.encoder.pos_conv[0].weight_v.detach().clone()
    return out


if __name__ == "__main__":
    main()
