"""DCRNN with fully-connected reset/update gates (use_gc_for_ru=False), trained for a few steps with Adam
and an L1 loss like torchTS's TimeSeriesModel training step."""
import numpy as np
import torch
import torch.nn.functional as F

from dcrnn import DCRNN


def main():
    torch.manual_seed(0)
    num_nodes, seq_len, horizon, batch_size = 5, 3, 2, 4
    rng = np.random.RandomState(0)
    adj_mx = (rng.rand(num_nodes, num_nodes) > 0.5).astype(np.float64) + np.eye(num_nodes)
    model = DCRNN(adj_mx, num_units=6, seq_len=seq_len, horizon=horizon, input_dim=2, output_dim=1,
                  max_diffusion_step=2, filter_type="dual_random_walk", num_nodes=num_nodes,
                  num_layers=2, use_gc_for_ru=False)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for step in range(2):
        batch = (torch.randn(batch_size, seq_len, num_nodes, 2), torch.randn(batch_size, horizon, num_nodes, 2))
        x, y = model.prepare_batch(batch)
        optimizer.zero_grad()
        pred = model(x, y, batches_seen=step)
        loss = F.l1_loss(pred, y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    cell = model.encoder_model.dcgru.layers[0]
    return {"losses": losses,
            "enc_ru_w": cell._ru_weights.detach().clone(),
            "enc_ru_b": cell._ru_biases.detach().clone(),
            "dec_proj": model.decoder_model.projection_layer.weight.detach().clone()}


if __name__ == "__main__":
    main()
