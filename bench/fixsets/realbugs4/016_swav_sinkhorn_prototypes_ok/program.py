"""facebookresearch/swav main_swav.py train loop (single process): prototype normalization under
no_grad, Sinkhorn-Knopp codes computed in place under no_grad, swapped prediction loss, and the
prototypes' gradient cancelled during the first iterations."""
import torch
import torch.nn as nn


@torch.no_grad()
def distributed_sinkhorn(out, epsilon=0.05, sinkhorn_iterations=3):
    Q = torch.exp(out / epsilon).t()  # Q is K-by-B for consistency with notations from our paper
    B = Q.shape[1]  # number of samples to assign
    K = Q.shape[0]  # how many prototypes

    # make the matrix sums to 1
    sum_Q = torch.sum(Q)
    Q /= sum_Q

    for it in range(sinkhorn_iterations):
        # normalize each row: total weight per prototype must be 1/K
        sum_of_rows = torch.sum(Q, dim=1, keepdim=True)
        Q /= sum_of_rows
        Q /= K

        # normalize each column: total weight per sample must be 1/B
        Q /= torch.sum(Q, dim=0, keepdim=True)
        Q /= B

    Q *= B  # the colomns must sum to 1 so that Q is an assignment
    return Q.t()


class SwAVModel(nn.Module):
    def __init__(self, output_dim=8, nmb_prototypes=6):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(12, 16), nn.BatchNorm1d(16), nn.ReLU(inplace=True))
        self.projection_head = nn.Sequential(nn.Linear(16, 16), nn.BatchNorm1d(16), nn.ReLU(inplace=True),
                                             nn.Linear(16, output_dim))
        self.prototypes = nn.Linear(output_dim, nmb_prototypes, bias=False)

    def forward(self, inputs):
        x = self.projection_head(self.backbone(torch.cat(inputs)))
        x = nn.functional.normalize(x, dim=1, p=2)
        return x, self.prototypes(x)


def main():
    torch.manual_seed(0)
    model = SwAVModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    crops_for_assign, nmb_crops, temperature, freeze_prototypes_niters = [0, 1], [2], 0.1, 1
    bs = 4
    losses = []
    for iteration in range(3):
        inputs = [torch.randn(bs, 12), torch.randn(bs, 12)]
        # normalize the prototypes
        with torch.no_grad():
            w = model.prototypes.weight.data.clone()
            w = nn.functional.normalize(w, dim=1, p=2)
            model.prototypes.weight.copy_(w)

        embedding, output = model(inputs)
        embedding = embedding.detach()

        loss = 0
        for i, crop_id in enumerate(crops_for_assign):
            with torch.no_grad():
                out = output[bs * crop_id: bs * (crop_id + 1)].detach()
                q = distributed_sinkhorn(out)[-bs:]

            subloss = 0
            for v in [v for v in range(sum(nmb_crops)) if v != crop_id]:
                x = output[bs * v: bs * (v + 1)] / temperature
                subloss -= torch.mean(torch.sum(q * nn.functional.log_softmax(x, dim=1), dim=1))
            loss += subloss / (sum(nmb_crops) - 1)
        loss /= len(crops_for_assign)

        optimizer.zero_grad()
        loss.backward()
        # cancel gradients for the prototypes
        if iteration < freeze_prototypes_niters:
            for name, p in model.named_parameters():
                if "prototypes" in name:
                    p.grad = None
        optimizer.step()
        losses.append(loss.detach())
    return {"losses": losses, "prototypes": model.prototypes.weight.detach().clone(),
            "head_last": model.projection_head[3].weight.detach().clone()}


if __name__ == "__main__":
    main()
