import argparse

import torch

from models import VidODE, Discriminator


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lamb_adv", type=float, default=0.003)
    parser.add_argument("--epoch", type=int, default=1)
    parser.add_argument("--lr", type=float, default=1e-3)
    return parser.parse_args([])


def train(opt, model, netD_img, netD_seq, loader):
    optimizer_netG = torch.optim.Adamax(model.parameters(), lr=opt.lr)
    optimizer_netD = torch.optim.Adamax(list(netD_img.parameters()) + list(netD_seq.parameters()), lr=opt.lr)
    history = []
    for epoch in range(opt.epoch):
        for batch_dict in loader:
            fake, res = model(batch_dict)
            loss_netG = res["loss"]
            real = batch_dict["data_to_predict"]
            input_real = batch_dict["observed_data"]

            loss_netD = opt.lamb_adv * netD_seq.netD_adv_loss(real, fake, input_real)
            loss_netD += opt.lamb_adv * netD_img.netD_adv_loss(real, fake, None)

            loss_adv_netG = opt.lamb_adv * netD_seq.netG_adv_loss(fake, input_real)
            loss_adv_netG += opt.lamb_adv * netD_img.netG_adv_loss(fake, None)
            loss_netG += loss_adv_netG

            # Train D
            optimizer_netD.zero_grad()
            loss_netD.backward()
            optimizer_netD.step()

            # Train G
            optimizer_netG.zero_grad()
            loss_netG.backward()
            optimizer_netG.step()
            history.append((loss_netD.item(), loss_netG.item()))
    return history


def main():
    torch.manual_seed(0)
    opt = get_opt()
    model = VidODE()
    netD_img = Discriminator(in_ch=1)
    netD_seq = Discriminator(in_ch=5, seq=True)
    loader = [{"observed_data": torch.rand(2, 3, 1, 8, 8), "data_to_predict": torch.rand(2, 2, 1, 8, 8), "n_predict": 2}
              for _ in range(2)]
    history = train(opt, model, netD_img, netD_seq, loader)
    out = {"history": history}
    for prefix, m in (("G", model), ("Dimg", netD_img), ("Dseq", netD_seq)):
        for n, p in m.named_parameters():
            out[prefix + "." + n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
