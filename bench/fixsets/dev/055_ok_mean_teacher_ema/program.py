import copy
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.no_grad()
def ema_update(teacher, student, decay=0.9):
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.mul_(decay).add_(s, alpha=1 - decay)
    for tb, sb in zip(teacher.buffers(), student.buffers()):
        tb.copy_(sb)


def main():
    torch.manual_seed(0)
    student = nn.Sequential(nn.Linear(5, 16), nn.BatchNorm1d(16), nn.ReLU(inplace=True), nn.Linear(16, 3))
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    x_l, y_l = torch.randn(8, 5), torch.randint(0, 3, (8,))
    x_u = torch.randn(8, 5)
    for _ in range(3):
        sup = F.cross_entropy(student(x_l), y_l)
        with torch.no_grad():
            t_probs = teacher(x_u + 0.1 * torch.randn_like(x_u)).softmax(-1)
        cons = F.mse_loss(student(x_u).softmax(-1), t_probs)
        loss = sup + cons
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema_update(teacher, student)
    return {"loss": loss.detach(), "teacher": [t.clone().float() for t in teacher.state_dict().values()],
            "student": [t.clone().float() for t in student.state_dict().values()]}


if __name__ == "__main__":
    main()
