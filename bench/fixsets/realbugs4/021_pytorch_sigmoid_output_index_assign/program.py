"""pytorch/pytorch#9391: overwrite one element of a sigmoid's output, then backpropagate."""
import torch


def main():
    torch.manual_seed(0)
    a = torch.tensor([1, 2, 3.], requires_grad=True)
    b = a.sigmoid()
    b[1] = 2
    b.sum().backward()
    return {"b": b.detach().clone(), "a_grad": a.grad}


if __name__ == "__main__":
    main()
