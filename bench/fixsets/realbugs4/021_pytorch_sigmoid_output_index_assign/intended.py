"""pytorch/pytorch#9391: overwrite one element of a sigmoid's output, then backpropagate."""
import torch


def main():
    torch.manual_seed(0)
    a = torch.tensor([1, 2, 3.], requires_grad=True)
    b = 1/((-a).exp()+1)
    b[1] = 2
    b.sum().backward()
    return {"b": b.detach().clone(), "a_grad": a.grad}


if __name__ == "__main__":
    main()
