"""VG-HuBERT AudioEncoder (jasonppy/word-discovery, PR #4): the convolutional positional
embedding is added with `x += x_conv`, but pos_conv's Conv1d saved its input
x.transpose(1, 2), a view of the same x."""
from types import SimpleNamespace

import torch
import torch.nn.functional as F

from audio_encoder import AudioEncoder


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(conv_feature_layers=[(8, 10, 5), (8, 3, 2)], encoder_embed_dim=12,
                           dropout_input=0.1, dropout_features=0.1, feature_grad_mult=1.0,
                           conv_pos=4, conv_pos_groups=2, encoder_attention_heads=2,
                           encoder_ffn_embed_dim=16, layer_use=0, use_audio_cls_token=True)
    audio_encoder = AudioEncoder(args)
    image_proj = torch.nn.Linear(6, 12)
    params = list(audio_encoder.parameters()) + list(image_proj.parameters())
    optimizer = torch.optim.AdamW(params, lr=1e-4)
    losses = []
    for step in range(2):
        audio = torch.randn(3, 400)
        images = torch.randn(3, 6)
        optimizer.zero_grad()
        out = audio_encoder(audio)
        a = F.normalize(out["cls_token"], dim=-1)
        v = F.normalize(image_proj(images), dim=-1)
        sim = a @ v.t() / 0.07
        target = torch.arange(3)
        loss = (F.cross_entropy(sim, target) + F.cross_entropy(sim.t(), target)) / 2 \
            + 0.1 * out["features_pen"]
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    res = {"losses": losses}
    for name, p in list(audio_encoder.named_parameters()) + [("img." + n, p) for n, p in image_proj.named_parameters()]:
        res[name] = p.detach().clone()
    return res


if __name__ == "__main__":
    main()
