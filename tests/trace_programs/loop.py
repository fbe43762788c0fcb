import torch

torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
state = torch.zeros(5, 4)
state[0] = torch.randn(4)
for t in range(1, 5):
    state[t] = torch.tanh(state[t - 1] @ W)  # SAVED MUTATION
state.sum().backward()  # BACKWARD
