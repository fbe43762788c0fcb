import torch
import torch.nn as nn
import torch.nn.functional as F


def decode(anchors, deltas):
    wa = anchors[:, 2] - anchors[:, 0]
    ha = anchors[:, 3] - anchors[:, 1]
    cx = anchors[:, 0] + 0.5 * wa + deltas[:, 0] * wa
    cy = anchors[:, 1] + 0.5 * ha + deltas[:, 1] * ha
    w = wa * torch.exp(deltas[:, 2])
    h = ha * torch.exp(deltas[:, 3])
    return torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], dim=1)


def clip_boxes_(boxes, height, width):
    boxes = boxes.clone()
    boxes[:, 0].clamp_(min=0, max=width)
    boxes[:, 1].clamp_(min=0, max=height)
    boxes[:, 2].clamp_(min=0, max=width)
    boxes[:, 3].clamp_(min=0, max=height)
    return boxes


def giou_loss(a, b, eps=1e-7):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, :2], b[:, :2])
    rb = torch.min(a[:, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(1)
    union = area_a + area_b - inter
    hull = (torch.max(a[:, 2:], b[:, 2:]) - torch.min(a[:, :2], b[:, :2])).prod(1)
    giou = inter / (union + eps) - (hull - union) / (hull + eps)
    return (1 - giou).mean()


def main():
    torch.manual_seed(0)
    H, W = 32.0, 32.0
    head = nn.Linear(12, 4)
    feats = torch.randn(10, 12)
    xy = torch.rand(10, 2) * 28 - 2
    anchors = torch.cat([xy, xy + 8.0], dim=1)
    gt = anchors + torch.randn(10, 4) * 2
    gt = torch.stack([gt[:, 0].clamp(0, W), gt[:, 1].clamp(0, H), gt[:, 2].clamp(0, W), gt[:, 3].clamp(0, H)], 1)

    pred_boxes = decode(anchors, head(feats))
    l1 = F.smooth_l1_loss(pred_boxes, gt, beta=1.0)
    pred_boxes = clip_boxes_(pred_boxes, H, W)
    loss = l1 + giou_loss(pred_boxes, gt)
    loss.backward()
    return {"boxes": pred_boxes.detach(), "l1": l1.item(), "loss": loss.item(),
            "dW": head.weight.grad, "db": head.bias.grad}


if __name__ == "__main__":
    main()
