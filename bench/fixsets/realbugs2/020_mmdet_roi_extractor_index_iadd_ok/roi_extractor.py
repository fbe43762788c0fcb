import torch
import torch.nn as nn
import torch.nn.functional as F


class RoIAlign(nn.Module):
    """Bilinear RoI pooling (stand-in for mmdet.ops.RoIAlign, one sample per bin)."""

    def __init__(self, out_size, spatial_scale, sample_num=0):
        super(RoIAlign, self).__init__()
        self.out_size = (out_size, out_size)
        self.spatial_scale = float(spatial_scale)
        self.sample_num = sample_num

    def forward(self, features, rois):
        n, c, h, w = features.shape
        outs = []
        for roi in rois:
            b = int(roi[0])
            x1, y1, x2, y2 = (roi[1:] * self.spatial_scale).tolist()
            ys = torch.linspace(y1, y2, self.out_size[0]) / max(h - 1, 1) * 2 - 1
            xs = torch.linspace(x1, x2, self.out_size[1]) / max(w - 1, 1) * 2 - 1
            gy, gx = torch.meshgrid(ys, xs, indexing='ij')
            grid = torch.stack([gx, gy], dim=-1)[None]
            outs.append(F.grid_sample(features[b:b + 1], grid, align_corners=True))
        return torch.cat(outs, dim=0)


class SingleRoIExtractor(nn.Module):
    """Extract RoI features from a single level feature map.

    If there are mulitple input feature levels, each RoI is mapped to a level
    according to its scale.
    """

    def __init__(self, roi_layer, out_channels, featmap_strides, finest_scale=56):
        super(SingleRoIExtractor, self).__init__()
        self.roi_layers = self.build_roi_layers(roi_layer, featmap_strides)
        self.out_channels = out_channels
        self.featmap_strides = featmap_strides
        self.finest_scale = finest_scale

    @property
    def num_inputs(self):
        """int: Input feature map levels."""
        return len(self.featmap_strides)

    def build_roi_layers(self, layer_cfg, featmap_strides):
        cfg = layer_cfg.copy()
        layer_type = cfg.pop('type')
        assert layer_type == 'RoIAlign'
        roi_layers = nn.ModuleList(
            [RoIAlign(spatial_scale=1 / s, **cfg) for s in featmap_strides])
        return roi_layers

    def map_roi_levels(self, rois, num_levels):
        """Map rois to corresponding feature levels by scales.

        - scale < finest_scale: level 0
        - finest_scale <= scale < finest_scale * 2: level 1
        - finest_scale * 2 <= scale < finest_scale * 4: level 2
        - scale >= finest_scale * 4: level 3
        """
        scale = torch.sqrt(
            (rois[:, 3] - rois[:, 1] + 1) * (rois[:, 4] - rois[:, 2] + 1))
        target_lvls = torch.floor(torch.log2(scale / self.finest_scale + 1e-6))
        target_lvls = target_lvls.clamp(min=0, max=num_levels - 1).long()
        return target_lvls

    def forward(self, feats, rois):
        if len(feats) == 1:
            return self.roi_layers[0](feats[0], rois)

        out_size = self.roi_layers[0].out_size
        num_levels = len(feats)
        target_lvls = self.map_roi_levels(rois, num_levels)
        roi_feats = feats[0].new_zeros(rois.size(0), self.out_channels, *out_size)
        for i in range(num_levels):
            inds = target_lvls == i
            if inds.any():
                rois_ = rois[inds, :]
                roi_feats_t = self.roi_layers[i](feats[i], rois_)
                roi_feats[inds] += roi_feats_t
        return roi_feats
