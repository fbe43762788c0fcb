import torch
import torch.nn as nn


class BaseModel(nn.Module):
    """Tiny stand-in for the UpDn VQA model (v: image features, q: question)."""

    def __init__(self, v_dim, q_dim, num_hid, num_ans):
        super().__init__()
        self.v_proj = nn.Linear(v_dim, num_hid)
        self.q_emb = nn.Linear(q_dim, num_hid)
        self.classifier = nn.Sequential(nn.Linear(num_hid, num_hid), nn.ReLU(), nn.Linear(num_hid, num_ans))

    def forward(self, v, q):
        joint = torch.relu(self.v_proj(v).mean(1)) * torch.relu(self.q_emb(q))
        return self.classifier(joint)


class GenB(nn.Module):
    def __init__(self, v_dim, q_dim, num_hid, num_ans):
        super().__init__()
        self.v_proj = nn.Linear(v_dim, num_hid)
        self.q_emb = nn.Linear(q_dim, num_hid)
        self.noise = nn.Linear(num_hid, num_hid)
        self.classifier = nn.Linear(num_hid, num_ans)

    def forward(self, v, q, gen=True):
        h = torch.relu(self.v_proj(v).mean(1)) * torch.relu(self.q_emb(q))
        if gen:
            h = h + self.noise(torch.randn_like(h))
        return self.classifier(h)


class Discriminator(nn.Module):
    def __init__(self, num_ans, num_hid):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(num_ans, num_hid), nn.ReLU(), nn.Linear(num_hid, 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x)
