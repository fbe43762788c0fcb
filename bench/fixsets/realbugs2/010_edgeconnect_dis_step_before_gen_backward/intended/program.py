"""EdgeConnect EdgeModel (knazeri/edge-connect, issue #152): EdgeModel.backward() runs
dis_loss.backward() and dis_optimizer.step() before gen_loss.backward(); gen_loss came
through the discriminator (gen_fake), whose weights the step has just rewritten."""
from types import SimpleNamespace

import torch

from models import EdgeModel


def main():
    torch.manual_seed(0)
    config = SimpleNamespace(GAN_LOSS='nsgan', LR=0.0001, D2G_LR=0.1, BETA1=0.0, BETA2=0.9,
                             FM_LOSS_WEIGHT=10)
    edge_model = EdgeModel(config)
    edge_model.train()
    logs_all = []
    for it in range(2):
        images = torch.rand(2, 1, 32, 32)
        edges = (torch.rand(2, 1, 32, 32) > 0.8).float()
        masks = torch.zeros(2, 1, 32, 32)
        masks[:, :, 8:20, 8:20] = 1
        outputs, gen_loss, dis_loss, logs = edge_model.process(images, edges, masks)
        edge_model.backward(gen_loss, dis_loss)
        logs_all.append([v for _, v in logs])
    out = {"logs": logs_all, "outputs": outputs.detach()}
    for name, p in edge_model.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
