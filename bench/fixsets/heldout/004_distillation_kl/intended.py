import torch
import torch.nn as nn
import torch.nn.functional as F


def distill_loss(student_logits, teacher_logits, T=1.0):
    p_s = F.softmax(student_logits / T, dim=-1)
    p_t = F.softmax(teacher_logits / T, dim=-1)
    p_s = p_s.masked_fill(p_s < 1e-3, 1e-3)
    return (p_t * (p_t.log() - p_s.log())).sum(-1).mean() * T * T


def main():
    torch.manual_seed(0)
    teacher = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 10))
    student = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 10))
    for p in teacher.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    x = torch.randn(32, 8) * 8
    y = torch.randint(0, 10, (32,))
    logs = []
    for _ in range(2):
        s_logits = student(x)
        with torch.no_grad():
            t_logits = teacher(x) * 4
        loss = 0.7 * distill_loss(s_logits, t_logits) + 0.3 * F.cross_entropy(s_logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        logs.append(loss.item())
    return {"logs": logs, "student": [p.detach().clone() for p in student.parameters()]}


if __name__ == "__main__":
    main()
