import torch
import torch.nn as nn
import torch.nn.functional as F


def decode_scores(net, end_points, num_class, mode=''):
    net_transposed = net.transpose(2, 1)  # (batch_size, num_proposal, C)
    end_points['objectness_scores' + mode] = net_transposed[:, :, 0:2]
    end_points['center' + mode] = net_transposed[:, :, 2:5]
    end_points['sem_cls_scores' + mode] = net_transposed[:, :, 5:5 + num_class]
    return end_points


class ProposalModuleRefine(nn.Module):
    def __init__(self, num_class, seed_feat_dim=8, hidden=8):
        super().__init__()
        self.num_class = num_class
        self.conv1 = nn.Conv1d(seed_feat_dim, hidden, 1)
        self.bn1 = nn.BatchNorm1d(hidden)
        self.conv_surface1 = nn.Conv1d(seed_feat_dim, hidden, 1)
        self.bn_surface1 = nn.BatchNorm1d(hidden)
        self.conv_surface2 = nn.Conv1d(hidden, hidden // 2, 1)
        self.bn_surface2 = nn.BatchNorm1d(hidden // 2)
        self.conv_line1 = nn.Conv1d(seed_feat_dim, hidden, 1)
        self.bn_line1 = nn.BatchNorm1d(hidden)
        self.conv_line2 = nn.Conv1d(hidden, hidden // 2, 1)
        self.bn_line2 = nn.BatchNorm1d(hidden // 2)
        self.conv_refine1 = nn.Conv1d(hidden, hidden, 1)
        self.bn_refine1 = nn.BatchNorm1d(hidden)
        self.conv_refine2 = nn.Conv1d(hidden, hidden, 1)
        self.bn_refine2 = nn.BatchNorm1d(hidden)
        self.conv_refine3 = nn.Conv1d(hidden, hidden, 1)
        self.bn_refine3 = nn.BatchNorm1d(hidden)
        self.conv_refine4 = nn.Conv1d(hidden, 2 + 3 + num_class, 1)

    def forward(self, features, surface_features, line_features, end_points):
        batch_size, _, object_proposal = features.shape
        original_feature = F.relu(self.bn1(self.conv1(features)))

        surface_features = F.relu(self.bn_surface1(self.conv_surface1(surface_features)))
        surface_features = F.relu(self.bn_surface2(self.conv_surface2(surface_features))).view(batch_size, -1, 6, object_proposal).contiguous()

        line_features = F.relu(self.bn_line1(self.conv_line1(line_features)))
        line_features = F.relu(self.bn_line2(self.conv_line2(line_features))).view(batch_size, -1, 12, object_proposal).contiguous()

        surface_pool_feature = F.max_pool2d(surface_features, (6, 1), stride=1).squeeze(2)
        line_pool_feature = F.max_pool2d(line_features, (12, 1), stride=1).squeeze(2)

        combine_feature = torch.cat((surface_pool_feature, line_pool_feature), dim=1)

        net = F.relu(self.bn_refine1(self.conv_refine1(combine_feature)))
        net += original_feature  ### Residual feature
        net = F.relu(self.bn_refine2(self.conv_refine2(net)))
        net = F.relu(self.bn_refine3(self.conv_refine3(net)))
        net = self.conv_refine4(net)

        end_points = decode_scores(net, end_points, self.num_class, mode='opt')
        return end_points


def main():
    torch.manual_seed(0)
    num_proposal = 3
    net = ProposalModuleRefine(num_class=4)
    features = torch.randn(2, 8, num_proposal)
    surface_features = torch.randn(2, 8, 6 * num_proposal)
    line_features = torch.randn(2, 8, 12 * num_proposal)
    end_points = net(features, surface_features, line_features, {})
    obj_target = torch.randint(0, 2, (2, num_proposal))
    sem_target = torch.randint(0, 4, (2, num_proposal))
    loss = F.cross_entropy(end_points['objectness_scoresopt'].transpose(2, 1), obj_target) \
        + F.cross_entropy(end_points['sem_cls_scoresopt'].transpose(2, 1), sem_target) \
        + end_points['centeropt'].pow(2).mean()
    loss.backward()
    out = {"loss": loss.item()}
    for k, v in end_points.items():
        out[k] = v.detach()
    for n, p in net.named_parameters():
        out[n + ".grad"] = p.grad
    return out


if __name__ == "__main__":
    main()
