import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class WideResNetTiny(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.layer4 = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU())
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(6, num_classes)

    def forward(self, x):
        x = self.layer4(x)
        x = self.avgpool(x).flatten(1)
        return self.fc(x)


def returnCAM(feature_conv, weight_softmax, class_idx):
    nc, h, w = feature_conv.shape
    output_cam = []
    for idx in class_idx:
        cam = weight_softmax[class_idx].dot(feature_conv.reshape((nc, h * w)))
        cam = cam.reshape(h, w)
        cam = cam - np.min(cam)
        cam_img = cam / (np.max(cam) + 1e-8)
        output_cam.append(cam_img)
    return output_cam


def main():
    torch.manual_seed(0)
    model = WideResNetTiny()
    model.eval()

    features_blobs = []

    def hook_feature(module, input, output):
        features_blobs.append(np.squeeze(output.data.cpu().numpy()))

    model._modules.get('layer4').register_forward_hook(hook_feature)

    # get the softmax weight
    params = list(model.parameters())
    weight_softmax = params[-2].data.numpy().copy()
    weight_softmax[weight_softmax < 0] = 0

    img = torch.randn(1, 3, 4, 4)
    logit = model.forward(img)
    h_x = F.softmax(logit, 1).data.squeeze()
    probs, idx = h_x.sort(0, True)
    CAMs = returnCAM(features_blobs[0], weight_softmax, [idx[0].item()])
    return {"probs": probs, "idx": idx, "cam": torch.from_numpy(np.array(CAMs)),
            "fc.weight": model.fc.weight.detach().clone()}


if __name__ == "__main__":
    main()
