import torch
import torch.nn as nn


def alpha_prior(x, alpha=2.):
    return torch.abs(x.view(-1) ** alpha).sum()


def tv_norm(x, beta=2.):
    assert (x.size(0) == 1)
    img = x[0]
    dy = img - img  # set size of derivative and set border = 0
    dx = img - img
    dy[:, 1:, :] = -img[:, :-1, :] + img[:, 1:, :]
    dx[:, :, 1:] = -img[:, :, :-1] + img[:, :, 1:]
    return ((dx.pow(2) + dy.pow(2)).pow(beta / 2.)).sum()


def norm_loss(input, target):
    return torch.div(alpha_prior(input - target, alpha=2.), alpha_prior(target, alpha=2.))


class Denormalize(object):
    def __init__(self, mean, std):
        self.mean = mean
        self.std = std

    def __call__(self, tensor):
        tensor = tensor.clone()
        for t, m, s in zip(tensor, self.mean, self.std):
            t.mul_(s).add_(m)
        return tensor


class Clip(object):
    def __call__(self, tensor):
        t = tensor.clone()
        t[t > 1] = 1
        t[t < 0] = 0
        return t


class Compose(object):
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


def get_pytorch_module(net, blob):
    modules = blob.split('.')
    if len(modules) == 1:
        return net._modules.get(blob)
    curr_m = net
    for m in modules:
        curr_m = curr_m._modules.get(m)
    return curr_m


def invert(model, img_, layer='features.2', alpha=6, beta=2, alpha_lambda=1e-5, tv_lambda=1e-5,
           epochs=6, learning_rate=1e-1, momentum=0.9, print_iter=2):
    mu = [0.485, 0.456, 0.406]
    sigma = [0.229, 0.224, 0.225]
    detransform = Compose([Denormalize(mu, sigma), Clip()])

    activations = []

    def hook_acts(module, input, output):
        activations.append(output)

    def get_acts(model, input):
        del activations[:]
        _ = model(input)
        assert (len(activations) == 1)
        return activations[0]

    _ = get_pytorch_module(model, layer).register_forward_hook(hook_acts)
    ref_acts = get_acts(model, img_).detach()
    x_ = (1e-3 * torch.randn(*img_.size())).requires_grad_(True)

    alpha_f = lambda x: alpha_prior(x, alpha=alpha)
    tv_f = lambda x: tv_norm(x, beta=beta)
    loss_f = lambda x: norm_loss(x, ref_acts)
    optimizer = torch.optim.SGD([x_], lr=learning_rate, momentum=momentum)

    snapshots, losses = [], []
    for i in range(epochs):
        acts = get_acts(model, x_)
        alpha_term = alpha_f(x_)
        tv_term = tv_f(x_)
        loss_term = loss_f(acts)
        tot_loss = alpha_lambda * alpha_term + tv_lambda * tv_term + loss_term
        optimizer.zero_grad()
        tot_loss.backward()
        optimizer.step()
        losses.append(tot_loss.item())
        if (i + 1) % print_iter == 0:
            snapshots.append(detransform(x_[0].data.cpu()))
    return x_, snapshots, losses


def main():
    torch.manual_seed(0)
    model = nn.Module()
    model.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1))
    model.forward = lambda x: model.features(x)
    model.eval()
    img_ = torch.randn(1, 3, 6, 6)
    x_, snapshots, losses = invert(model, img_)
    return {"x": x_.detach().clone(), "snapshots": snapshots, "losses": losses}


if __name__ == "__main__":
    main()
