import torch
import torch.nn as nn


def prune_magnitude(layer, sparsity):
    W = layer.weight.data
    thresh = torch.sort(torch.abs(W.flatten()))[0][int(W.numel() * sparsity)]
    W[torch.abs(W) <= thresh] = 0


@torch.no_grad()
def sparsellm_mlp(subset, X, Y, args, opt_epochs=2, alpha=5.0, beta=5.0, gamma=5.0):
    """Alternating optimisation of the auxiliary variables s, z, p of one SwiGLU MLP
    (gate_proj -> s, up_proj -> z, down_proj input -> p), SparseLLM style."""
    # initial auxiliary variables from the dense layer
    s = torch.matmul(subset['mlp.gate_proj'].weight, X)
    z = torch.matmul(subset['mlp.up_proj'].weight, X)
    p = nn.functional.silu(s) * z

    Xinv = torch.pinverse(X)
    training_loss = {'train_loss': []}

    for opt_step in range(opt_epochs):

        ##############
        # optimize W
        ##############
        if opt_step > 0:   # for the first step, no need for updating W
            weight_matrix_1 = torch.matmul(z, Xinv)
            subset['mlp.up_proj'].weight.copy_(weight_matrix_1)
            pinv = torch.pinverse(p)
            weight_matrix_2 = torch.matmul(Y, pinv)
            subset['mlp.down_proj'].weight.copy_(weight_matrix_2)
            weight_matrix_3 = torch.matmul(s, Xinv)
            subset['mlp.gate_proj'].weight.copy_(weight_matrix_3)

        ##############
        # prune W
        ##############
        for name in ['mlp.up_proj', 'mlp.gate_proj', 'mlp.down_proj']:
            prune_magnitude(subset[name], args.sparsity)

        ##############
        # optimize p
        ##############
        next_weight = subset['mlp.down_proj'].weight
        m1 = beta * torch.matmul(next_weight.T, next_weight)
        m2 = gamma * torch.eye(m1.shape[0], device=m1.device)
        av = torch.inverse(m1 + m2)
        layer_nl_output = nn.functional.silu(s) * z
        m3 = beta * torch.matmul(next_weight.T, Y)
        m4 = gamma * layer_nl_output
        af = m3 + m4
        p = torch.matmul(av, af)

        ##############
        # optimize z
        ##############
        w = subset['mlp.up_proj'].weight
        m = torch.matmul(w, X)
        swish = nn.functional.silu(s)
        z = (m + swish * p) / (swish ** 2 + 1)

        ##############
        # optimize s
        ##############
        w = subset['mlp.gate_proj'].weight
        w = w.to(dtype=torch.float32).requires_grad_(True)

        s_update_epochs = 2
        s_learning_rate = 0.01
        for _ in range(s_update_epochs):
            batch_size = 4
            for k in range(0, s.size(-1), batch_size):
                chunk = slice(k, k + batch_size)

                # get the "mini-batch" for each tensor and turn on autograd
                X_batch = X[:, chunk].to(dtype=torch.float32).requires_grad_(True)
                z_batch = z[:, chunk].to(dtype=torch.float32).requires_grad_(True)
                p_batch = p[:, chunk].to(dtype=torch.float32).requires_grad_(True)
                s_batch = s[:, chunk].to(dtype=torch.float32).requires_grad_(True)

                with torch.enable_grad():   # temporarily turn on the Pytorch computational graph functionality
                    loss_s = alpha * torch.norm(s_batch - torch.matmul(w, X_batch))**2
                    loss_s += gamma * torch.norm(p_batch - nn.functional.silu(s_batch) * z_batch)**2

                loss_s.backward()
                s_batch -= s_learning_rate * s_batch.grad
                s_batch.grad.zero_()
                s[:, chunk] = s_batch.detach()

        tmp_training_loss = nn.functional.mse_loss(
            torch.matmul(subset['mlp.down_proj'].weight,
                         nn.functional.silu(torch.matmul(subset['mlp.gate_proj'].weight, X))
                         * torch.matmul(subset['mlp.up_proj'].weight, X)), Y)
        training_loss['train_loss'].append(tmp_training_loss.item())

    return s, z, p, training_loss
