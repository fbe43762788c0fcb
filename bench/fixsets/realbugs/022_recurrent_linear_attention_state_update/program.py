"""fast-transformers (idiap) RecurrentLinearAttention before PR #10: the running state
(Si, Zi) is updated in place with += at every time step, while the previous step's
einsums saved it for backward. Training the recurrent model through time fails."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def elu_feature_map(x):
    return F.elu(x) + 1


class RecurrentLinearAttention(nn.Module):
    """Implement fast_transformers.attention.causal_linear_attention as a
    fixed-dimensional state recurrent model."""
    def __init__(self, feature_map=None, eps=1e-6):
        super(RecurrentLinearAttention, self).__init__()
        self.feature_map = feature_map or elu_feature_map
        self.eps = eps

    def forward(self, query, key, value, memory=None):
        # Apply the feature map to the query and key
        Q = self.feature_map(query)
        K = self.feature_map(key)

        # Extract some shapes
        N, H, D = Q.shape
        _, _, M = value.shape

        # Extract the memory or initialize it
        if memory is None:
            Si = query.new_zeros((N, H, D, M))
            Zi = query.new_zeros((N, H, D))
        else:
            Si, Zi = memory

        # Ensure the batch size did not change
        if len(Si) != N:
            raise ValueError("The batch size changed during iteration")

        # Update the internal state
        Zi += K
        Si += torch.einsum("nhd,nhm->nhdm", K, value)

        # Compute the output
        Z = 1. / (torch.einsum("nhd,nhd->nh", Q, Zi) + self.eps)
        V = torch.einsum("nhd,nhdm,nh->nhm", Q, Si, Z)

        return V, [Si, Zi]


class RecurrentAttentionLayer(nn.Module):
    def __init__(self, attention, d_model, n_heads):
        super(RecurrentAttentionLayer, self).__init__()
        d_keys = d_model // n_heads
        self.inner_attention = attention
        self.query_projection = nn.Linear(d_model, d_keys * n_heads)
        self.key_projection = nn.Linear(d_model, d_keys * n_heads)
        self.value_projection = nn.Linear(d_model, d_keys * n_heads)
        self.out_projection = nn.Linear(d_keys * n_heads, d_model)
        self.n_heads = n_heads

    def forward(self, query, key, value, memory=None):
        N, _ = query.shape
        H = self.n_heads
        query = self.query_projection(query).view(N, H, -1)
        key = self.key_projection(key).view(N, H, -1)
        value = self.value_projection(value).view(N, H, -1)
        new_value, memory = self.inner_attention(query, key, value, memory)
        new_value = new_value.view(N, -1)
        return self.out_projection(new_value), memory


class RecurrentEncoderLayer(nn.Module):
    def __init__(self, d_model=8, n_heads=2):
        super().__init__()
        self.attention = RecurrentAttentionLayer(RecurrentLinearAttention(), d_model, n_heads)
        self.linear1 = nn.Linear(d_model, 2 * d_model)
        self.linear2 = nn.Linear(2 * d_model, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x, state=None):
        x2, state = self.attention(x, x, x, memory=state)
        x = self.norm1(x + x2)
        y = self.linear2(F.relu(self.linear1(x)))
        return self.norm2(x + y), state


def main():
    torch.manual_seed(0)
    layer = RecurrentEncoderLayer()
    readout = nn.Linear(8, 8)
    params = list(layer.parameters()) + list(readout.parameters())
    optimizer = torch.optim.SGD(params, lr=0.1)
    seq = torch.randn(2, 6, 8)       # (batch, time, features)

    state = None
    outputs = []
    for i in range(seq.shape[1] - 1):
        out, state = layer(seq[:, i], state)
        outputs.append(readout(out))
    pred = torch.stack(outputs, dim=1)
    loss = F.mse_loss(pred, seq[:, 1:])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

    result = {'loss': loss.detach(), 'pred': pred.detach()}
    for name, p in list(layer.named_parameters()) + [('readout.' + n, p) for n, p in readout.named_parameters()]:
        result[name] = p.detach().clone()
    return result


if __name__ == "__main__":
    main()
