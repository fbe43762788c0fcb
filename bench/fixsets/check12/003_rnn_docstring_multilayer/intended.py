import torch

input_size = 6
hidden_size = 6
num_layers = 2
batch_first = False


def init_weights():
    k = hidden_size ** -0.5
    def u(*shape):
        return ((torch.rand(*shape) * 2 - 1) * k).requires_grad_()
    weight_ih = [u(hidden_size, input_size) for _ in range(num_layers)]
    weight_hh = [u(hidden_size, hidden_size) for _ in range(num_layers)]
    bias_ih = [u(hidden_size) for _ in range(num_layers)]
    bias_hh = [u(hidden_size) for _ in range(num_layers)]
    return weight_ih, weight_hh, bias_ih, bias_hh


def forward(x, weight_ih, weight_hh, bias_ih, bias_hh, hx=None):
    if batch_first:
        x = x.transpose(0, 1)
    seq_len, batch_size, _ = x.size()
    if hx is None:
        hx = torch.zeros(num_layers, batch_size, hidden_size)
    h_t_minus_1 = hx
    h_t = hx
    output = []
    for t in range(seq_len):
        h_t = []
        for layer in range(num_layers):
            h_t.append(torch.tanh(
                x[t] @ weight_ih[layer].T
                + bias_ih[layer]
                + h_t_minus_1[layer] @ weight_hh[layer].T
                + bias_hh[layer]
            ))
        h_t = torch.stack(h_t)
        output.append(h_t[-1])
        h_t_minus_1 = h_t
    output = torch.stack(output)
    if batch_first:
        output = output.transpose(0, 1)
    return output, h_t


def main():
    torch.manual_seed(0)
    weight_ih, weight_hh, bias_ih, bias_hh = init_weights()
    x = torch.randn(5, 3, input_size)
    target = torch.randn(5, 3, hidden_size)
    output, h_n = forward(x, weight_ih, weight_hh, bias_ih, bias_hh)
    loss = ((output - target) ** 2).mean() + 0.1 * h_n.pow(2).mean()
    loss.backward()
    return {
        "loss": loss.detach(),
        "output": output.detach(),
        "grad_ih": [w.grad for w in weight_ih],
        "grad_hh": [w.grad for w in weight_hh],
        "grad_b": [b.grad for b in bias_ih + bias_hh],
    }


if __name__ == "__main__":
    main()
