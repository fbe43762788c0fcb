import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def distill_step(student, teacher, opt, img, T=2.0):
    s_logits = student(img)
    # the teacher was trained on ImageNet-normalised inputs
    for channel, m, s in zip(img.unbind(1), MEAN, STD):
        channel.sub_(m).div_(s)
    with torch.no_grad():
        t_logits = teacher(img)
    loss = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean") * T * T
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def make_net():
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 5))


def main():
    torch.manual_seed(0)
    student, teacher = make_net(), make_net()
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    img = torch.rand(4, 3, 8, 8)
    loss = distill_step(student, teacher, opt, img)
    return {"loss": loss, "params": [p.detach().clone() for p in student.parameters()]}


if __name__ == "__main__":
    main()
