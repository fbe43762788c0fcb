"""RK-Net (AggMan96/RK-Net) unit-subtraction attention module (USAM) with polish=True,
inserted after a ResNet-style stem, trained with a classification head."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class USAM(nn.Module):
    def __init__(self, kernel_size=3, padding=1, polish=True):
        super(USAM, self).__init__()

        kernel = torch.ones((kernel_size, kernel_size))
        kernel = kernel.unsqueeze(0).unsqueeze(0)
        self.weight = nn.Parameter(data=kernel, requires_grad=False)

        kernel2 = torch.ones((1, 1)) * (kernel_size * kernel_size)
        kernel2 = kernel2.unsqueeze(0).unsqueeze(0)
        self.weight2 = nn.Parameter(data=kernel2, requires_grad=False)

        self.polish = polish
        self.pad = padding
        self.relu = nn.ReLU()
        self.bn = nn.BatchNorm2d(1)

    def __call__(self, x):
        fmap = x.sum(1, keepdim=True)
        x1 = F.conv2d(fmap, self.weight, padding=self.pad)
        x2 = F.conv2d(fmap, self.weight2, padding=0)

        att = x2 - x1
        att = self.bn(att)
        att = self.relu(att)

        if self.polish:
            att[:, :, :, 0] = 0
            att[:, :, :, -1] = 0
            att[:, :, 0, :] = 0
            att[:, :, -1, :] = 0

        output = x + att * x

        return output


class RKNet(nn.Module):
    def __init__(self, class_num=5):
        super(RKNet, self).__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.usam_1 = USAM(polish=True)
        self.avgpool2 = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Linear(8, class_num)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer1(x)
        x = self.usam_1(x)
        x = self.avgpool2(x).flatten(1)
        return self.classifier(x)


def main():
    torch.manual_seed(0)
    model = RKNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    inputs = torch.randn(4, 3, 16, 16)
    labels = torch.tensor([0, 1, 2, 3])
    losses = []
    for _ in range(2):
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = F.cross_entropy(outputs, labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return {"losses": losses, "outputs": outputs.detach(),
            "conv1_weight": model.conv1.weight.detach().clone(),
            "usam_bn_weight": model.usam_1.bn.weight.detach().clone(),
            "classifier_weight": model.classifier.weight.detach().clone()}


if __name__ == "__main__":
    main()
