"""yolov5 train.py start-up and first steps (ultralytics/yolov5#1552), reduced:
a tiny two-level model instead of yolov5s.yaml, random images, and a plain
objectness/class BCE on random targets instead of ComputeLoss.
Model() fails while building: _initialize_biases() adds the prior to a view
of each Detect conv bias (a leaf Parameter) with grad mode on.
"""
import torch
import torch.nn as nn

from yolo import Model

cfg = {
    'nc': 3,
    'anchors': [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119]],
}


def main():
    torch.manual_seed(0)
    model = Model(dict(cfg), ch=3, nc=3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True)
    BCEobj = nn.BCEWithLogitsLoss()
    BCEcls = nn.BCEWithLogitsLoss()
    g = torch.Generator().manual_seed(1)
    losses = []
    model.train()
    for _ in range(2):
        imgs = torch.rand(2, 3, 64, 64, generator=g)
        pred = model(imgs)
        loss = 0.
        for p in pred:
            tobj = (torch.rand(p.shape[:4], generator=g) < 0.05).float()
            tcls = (torch.rand(p[..., 5:].shape, generator=g) < 0.3).float()
            loss = loss + BCEobj(p[..., 4], tobj) + 0.5 * BCEcls(p[..., 5:], tcls)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    detect = model.model[-1]
    return {'losses': losses,
            'detect_bias': [mi.bias.detach().clone() for mi in detect.m],
            'stride': detect.stride.clone(),
            'params': [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
