import torch
import torch.nn as nn


class VidODE(nn.Module):
    """Tiny stand-in for the ODE encoder/decoder: predicts the next frames from the observed ones."""

    def __init__(self, c=1, hid=4):
        super().__init__()
        self.enc = nn.Conv2d(c, hid, 3, padding=1)
        self.ode_func = nn.Sequential(nn.Conv2d(hid, hid, 3, padding=1), nn.Tanh())
        self.dec = nn.Conv2d(hid, c, 3, padding=1)

    def forward(self, batch_dict):
        x = batch_dict["observed_data"]  # (b, t, c, h, w)
        b, t, c, h, w = x.shape
        z = torch.tanh(self.enc(x[:, -1]))
        preds = []
        for _ in range(batch_dict["n_predict"]):
            z = z + 0.5 * self.ode_func(z)
            preds.append(torch.sigmoid(self.dec(z)))
        pred = torch.stack(preds, 1)
        loss = ((pred - batch_dict["data_to_predict"]) ** 2).mean()
        return pred, {"loss": loss}


class Discriminator(nn.Module):
    def __init__(self, in_ch, hid=4, seq=False):
        super().__init__()
        self.seq = seq
        self.net = nn.Sequential(nn.Conv2d(in_ch, hid, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(hid, 1, 3, padding=1))
        self.criterion = nn.MSELoss()  # LSGAN

    def _d(self, x, input_real):
        if self.seq:
            if input_real is not None:
                x = torch.cat([input_real, x], 1)
            x = x.flatten(1, 2)
        else:
            x = x.flatten(0, 1)
        return self.net(x)

    def netD_adv_loss(self, real, fake, input_real):
        pred_real = self._d(real, input_real)
        pred_fake = self._d(fake.detach(), input_real)
        return 0.5 * (self.criterion(pred_real, torch.ones_like(pred_real)) +
                      self.criterion(pred_fake, torch.zeros_like(pred_fake)))

    def netG_adv_loss(self, fake, input_real):
        pred_fake = self._d(fake, input_real)
        return self.criterion(pred_fake, torch.ones_like(pred_fake))
