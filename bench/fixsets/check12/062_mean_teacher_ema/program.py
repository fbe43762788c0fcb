import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.no_grad()
def ema_update(teacher, student, decay=0.9):
    for tp, sp in zip(teacher.parameters(), student.parameters()):
        tp.mul_(decay).add_(sp, alpha=1 - decay)
    for tb, sb in zip(teacher.buffers(), student.buffers()):
        tb.copy_(sb)


def main():
    torch.manual_seed(0)
    student = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3))
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    x_l = torch.randn(8, 6)
    y_l = torch.randint(0, 3, (8,))
    x_u = torch.randn(12, 6)
    for _ in range(3):
        sup = F.cross_entropy(student(x_l), y_l)
        with torch.no_grad():
            target = F.softmax(teacher(x_u + 0.1 * torch.randn_like(x_u)), -1)
        cons = F.mse_loss(F.softmax(student(x_u), -1), target)
        loss = sup + cons
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema_update(teacher, student)
    return {
        "loss": loss.detach(),
        "student": [p.detach().clone() for p in student.parameters()],
        "teacher": [p.detach().clone() for p in teacher.parameters()],
    }


if __name__ == "__main__":
    main()
