"""pytorch-auto-drive with the maintainers' fix (PR #139): RESA (ResNet18 backbone) trained on TuSimple-shaped random data.

Model config as configs/lane_detection/resa/resnet18_tusimple.py (7 classes, RESAReducer 256->128,
RESA(num_channels=128, alpha=2.0), BUSD decoder, EDLaneExist head), loss as LaneLoss with
segloss_7class (existence_weight=0.1, class weights [0.4, 1, ...], ignore_index=255), optimizer as sgd006,
and the step of utils/runners/lane_det_trainer.py (zero_grad, criterion(inputs, labels, existence, model,
input_size), backward, step). Sizes are shrunk: input 32x64 instead of 360x640 (feature map 4x8, so
RESA uses iteration=2 rather than 5 to keep 2**iteration <= 4, and flattened_size=5*2*4), batch 2.
"""
from typing import Optional

import torch
from torch import Tensor
from torch.nn import functional as F
from torch.nn.modules.loss import _WeightedLoss as WeightedLoss

from models import RESA_Net


# utils/losses/lane_seg_loss.py
class LaneLoss(WeightedLoss):
    __constants__ = ['ignore_index', 'reduction']
    ignore_index: int

    def __init__(self, existence_weight: float = 0.1, weight: Optional[Tensor] = None, size_average=None,
                 ignore_index: int = -100, reduce=None, reduction: str = 'mean'):
        super(LaneLoss, self).__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.existence_weight = existence_weight

    def forward(self, inputs: Tensor, targets: Tensor, lane_existence: Tensor, net, interp_size):
        outputs = net(inputs)
        prob_maps = torch.nn.functional.interpolate(outputs['out'], size=interp_size, mode='bilinear',
                                                    align_corners=True)
        targets[targets > lane_existence.shape[-1]] = 255  # Ignore extra lanes
        segmentation_loss = F.cross_entropy(prob_maps, targets, weight=self.weight,
                                            ignore_index=self.ignore_index, reduction=self.reduction)
        existence_loss = F.binary_cross_entropy_with_logits(outputs['lane'], lane_existence,
                                                            weight=None, pos_weight=None, reduction=self.reduction)
        total_loss = segmentation_loss + self.existence_weight * existence_loss

        return total_loss, {'training loss': total_loss, 'loss seg': segmentation_loss,
                            'loss exist': existence_loss}


def main():
    torch.manual_seed(0)
    input_size = (32, 64)
    model = RESA_Net(
        backbone_cfg=dict(name='predefined_resnet_backbone', backbone_name='resnet18', return_layer='layer3',
                          pretrained=False, replace_stride_with_dilation=[False, True, True]),
        reducer_cfg=dict(in_channels=256, reduce=128),
        spatial_conv_cfg=dict(num_channels=128, iteration=2, alpha=2.0),
        classifier_cfg=dict(in_channels=128, num_classes=7),
        lane_classifier_cfg=dict(num_output=7 - 1, flattened_size=40, dropout=0.1, pool='avg'),
    )
    criterion = LaneLoss(existence_weight=0.1, ignore_index=255, weight=torch.tensor([0.4, 1, 1, 1, 1, 1, 1]))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.06, momentum=0.9, weight_decay=1e-4)
    model.train()
    losses = []
    for _ in range(2):
        inputs = torch.randn(2, 3, *input_size)
        labels = torch.randint(0, 7, (2, *input_size))
        existence = torch.randint(0, 2, (2, 6)).float()
        optimizer.zero_grad()
        loss, log_dict = criterion(inputs, labels, existence, model, input_size)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses,
            "reducer": model.channel_reducer.conv1.weight.detach().clone(),
            "resa_conv_d0": model.spatial_conv.conv_d[0].weight.detach().clone(),
            "exist_linear2": model.lane_classifier.linear2.weight.detach().clone()}


if __name__ == "__main__":
    main()
