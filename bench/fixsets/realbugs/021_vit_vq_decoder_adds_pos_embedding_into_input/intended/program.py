"""enhancing-transformers (ViT-VQGAN), issue #11: two ViTDecoders decode the same quantized
tokens (an RGB decoder and a second-target decoder). ViTDecoder.forward adds its positional
embedding to its argument in place, so the second decoder rewrites the tokens the first
decoder's LayerNorm saved."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from layers import ViTEncoder, ViTDecoder


class VectorQuantizer(nn.Module):
    def __init__(self, embed_dim, n_embed, beta=0.25):
        super().__init__()
        self.beta = beta
        self.embedding = nn.Embedding(n_embed, embed_dim)
        nn.init.uniform_(self.embedding.weight, -1.0 / n_embed, 1.0 / n_embed)

    def forward(self, z):
        z_norm = F.normalize(z, dim=-1)
        embedding_norm = F.normalize(self.embedding.weight, dim=-1)
        d = torch.sum(z_norm ** 2, dim=-1, keepdim=True) + torch.sum(embedding_norm ** 2, dim=1) - \
            2 * torch.einsum('bnd,kd->bnk', z_norm, embedding_norm)
        encoding_indices = torch.argmin(d, dim=-1)
        z_qnorm = F.normalize(self.embedding(encoding_indices), dim=-1)
        loss = self.beta * torch.mean((z_qnorm.detach() - z_norm) ** 2) + torch.mean((z_qnorm - z_norm.detach()) ** 2)
        # preserve gradients
        z_qnorm = z_norm + (z_qnorm - z_norm).detach()
        return z_qnorm, loss, encoding_indices


class TwoHeadViTVQ(nn.Module):
    def __init__(self, image_size=8, patch_size=4, dim=16, depth=1, heads=2, mlp_dim=32, dim_head=8):
        super().__init__()
        self.encoder = ViTEncoder(image_size, patch_size, dim, depth, heads, mlp_dim, dim_head=dim_head)
        self.quantizer = VectorQuantizer(dim, 16)
        self.decoder_a = ViTDecoder(image_size, patch_size, dim, depth, heads, mlp_dim, channels=3, dim_head=dim_head)
        self.decoder_b = ViTDecoder(image_size, patch_size, dim, depth, heads, mlp_dim, channels=1, dim_head=dim_head)

    def forward(self, x):
        h = self.encoder(x)
        quant, emb_loss, _ = self.quantizer(h)
        rec_a = self.decoder_a(quant)
        rec_b = self.decoder_b(quant)
        return rec_a, rec_b, emb_loss


def main():
    torch.manual_seed(0)
    model = TwoHeadViTVQ()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for step in range(2):
        img = torch.rand(2, 3, 8, 8)
        gray = img.mean(dim=1, keepdim=True)
        rec_a, rec_b, emb_loss = model(img)
        loss = F.l1_loss(rec_a, img) + F.l1_loss(rec_b, gray) + emb_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {'losses': losses, 'rec_a': rec_a.detach(), 'rec_b': rec_b.detach()}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
