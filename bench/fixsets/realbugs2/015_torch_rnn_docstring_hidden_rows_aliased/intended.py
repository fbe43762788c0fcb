"""torch.nn.RNN docstring reference implementation (pytorch/pytorch PR #142303): the loop
writes each new state into rows of h_t (h_t[layer] = tanh(...)), but appends the view
h_t[-1] to `output` and sets h_t_minus_1 = h_t, so every stored step aliases the same
storage (and h_0, the caller's tensor, is overwritten): output holds the last state
seq_len times."""
import torch

batch_first = False
num_layers = 1
hidden_size = 5
input_size = 2


def main():
    torch.manual_seed(0)
    rnn = torch.nn.RNN(
        input_size=input_size,
        hidden_size=hidden_size,
        num_layers=num_layers
    )

    weight_ih = [rnn.weight_ih_l0.data]
    bias_ih = [rnn.bias_ih_l0.data]
    weight_hh = [rnn.weight_hh_l0.data]
    bias_hh = [rnn.bias_hh_l0.data]

    def forward(x, h_0=None):
        if batch_first:
            x = x.transpose(0, 1)
        seq_len, batch_size, _ = x.size()
        if h_0 is None:
            h_0 = torch.zeros(num_layers, batch_size, hidden_size)
        h_t_minus_1 = h_0.clone()
        h_t = h_0.clone()
        output = []
        for t in range(seq_len):
            for layer in range(num_layers):
                h_t[layer] = torch.tanh(
                    x[t] @ weight_ih[layer].T
                    + bias_ih[layer]
                    + h_t_minus_1[layer] @ weight_hh[layer].T
                    + bias_hh[layer]
                )
            output.append(h_t[-1].clone())
            h_t_minus_1 = h_t.clone()
        output = torch.stack(output)
        if batch_first:
            output = output.transpose(0, 1)
        return output, h_t

    x = torch.randn(4, 3, input_size)
    h0 = torch.randn(num_layers, 3, hidden_size)
    output, h_n = forward(x, h0)
    return {"output": output, "h_n": h_n.clone(), "h0_after": h0.clone()}


if __name__ == "__main__":
    main()
