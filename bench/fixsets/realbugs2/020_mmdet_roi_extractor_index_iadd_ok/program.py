"""mmdetection SingleRoIExtractor (open-mmlab/mmdetection PR #1160, "Fix inplace add in
roi extractor" for PyTorch 1.2): each level's RoI features are accumulated into a zero
buffer with `roi_feats[inds] += roi_feats_t`. The buffer is a fresh new_zeros tensor
and the index read saves only the indices, so under torch 2.13 backward is fine."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from roi_extractor import SingleRoIExtractor


class BBoxHead(nn.Module):
    def __init__(self, in_channels, roi_feat_size, num_classes):
        super().__init__()
        self.fc = nn.Linear(in_channels * roi_feat_size * roi_feat_size, 16)
        self.fc_cls = nn.Linear(16, num_classes)
        self.fc_reg = nn.Linear(16, 4)

    def forward(self, x):
        x = F.relu(self.fc(x.flatten(1)))
        return self.fc_cls(x), self.fc_reg(x)


def main():
    torch.manual_seed(0)
    neck_convs = nn.ModuleList([nn.Conv2d(3, 4, 3, stride=s, padding=1) for s in (4, 8, 16)])
    extractor = SingleRoIExtractor(dict(type='RoIAlign', out_size=3, sample_num=2),
                                   out_channels=4, featmap_strides=[4, 8, 16], finest_scale=8)
    head = BBoxHead(4, 3, num_classes=3)
    params = list(neck_convs.parameters()) + list(head.parameters())
    optimizer = torch.optim.SGD(params, lr=0.02, momentum=0.9)
    img = torch.randn(2, 3, 64, 64)
    rois = torch.tensor([[0, 2., 2., 9., 9.], [0, 4., 4., 40., 36.], [1, 0., 8., 30., 60.],
                         [1, 10., 10., 20., 22.], [0, 1., 1., 62., 62.]])
    labels = torch.tensor([1, 2, 0, 1, 2])
    targets = torch.randn(5, 4)
    losses = []
    for it in range(2):
        optimizer.zero_grad()
        feats = [conv(img) for conv in neck_convs]
        roi_feats = extractor(feats, rois)
        cls_score, bbox_pred = head(roi_feats)
        loss = F.cross_entropy(cls_score, labels) + F.smooth_l1_loss(bbox_pred, targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {"losses": losses, "roi_feats": roi_feats.detach()}
    for name, p in list(neck_convs.named_parameters()) + [("head." + n, p) for n, p in head.named_parameters()]:
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
