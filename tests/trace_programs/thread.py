"""The in-place autograd error in a background thread: the main thread exits 0."""
import threading

import torch


def work():
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    y.add_(1)
    y.sum().backward()


t = threading.Thread(target=work, name="worker")
t.start()
t.join()
