"""An ART attack step against a YOLO detector (pattern of ART's
attack_adversarial_patch_pytorch_yolo notebook), reduced: a tiny single-scale
YOLO-style net and loss stand in for yolov5 + ComputeLoss.
The user's float32 image batch (0..255) is passed to predict() and then to
loss_gradient(); PyTorchYolo wraps it with torch.from_numpy and divides it by
255 in place, so the caller's array changes under its feet.
"""
import numpy as np
import torch
import torch.nn as nn

from pytorch_yolo import PyTorchYolo

NC = 2


class TinyYoloNet(nn.Module):
    def __init__(self, na=2):
        super().__init__()
        self.na = na
        self.body = nn.Sequential(
            nn.Conv2d(3, 8, 3, 2, 1), nn.SiLU(),
            nn.Conv2d(8, 16, 3, 2, 1), nn.SiLU(),
        )
        self.head = nn.Conv2d(16, na * (5 + NC), 1)

    def forward(self, x):
        p = self.head(self.body(x))
        bs, _, ny, nx = p.shape
        return p.view(bs, self.na, 5 + NC, ny, nx).permute(0, 1, 3, 4, 2).reshape(bs, -1, 5 + NC)


class Yolo(nn.Module):
    """Wrapper returning the loss components in train mode, as ART expects."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.bce = nn.BCEWithLogitsLoss()

    def forward(self, x, targets=None):
        if self.training:
            outputs = self.model(x)
            loss_obj = self.bce(outputs[..., 4], torch.zeros_like(outputs[..., 4]))
            loss_box = outputs.new_zeros(())
            loss_cls = outputs.new_zeros(())
            for t in targets:
                i, c = int(t[0]), int(t[1])
                loss_box = loss_box + ((outputs[i, 0, :4].sigmoid() - t[2:6]) ** 2).sum()
                loss_cls = loss_cls - torch.log_softmax(outputs[i, 0, 5:], dim=-1)[c]
            loss_total = loss_obj + loss_box + loss_cls
            return {"loss_total": loss_total, "loss_box": loss_box, "loss_obj": loss_obj, "loss_cls": loss_cls}
        else:
            return self.model(x)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    model = Yolo(TinyYoloNet())
    detector = PyTorchYolo(
        model=model,
        input_shape=(3, 32, 32),
        channels_first=True,
        clip_values=(0, 255),
        attack_losses=("loss_total", "loss_cls", "loss_box", "loss_obj"),
    )

    x = (np.random.rand(2, 3, 32, 32) * 255).astype(np.float32)
    y = [
        {"boxes": np.array([[4.0, 6.0, 20.0, 28.0]], dtype=np.float32), "labels": np.array([1])},
        {"boxes": np.array([[10.0, 2.0, 30.0, 18.0]], dtype=np.float32), "labels": np.array([0])},
    ]

    dets = detector.predict(x)
    grads = detector.loss_gradient(x=x, y=y)

    # one signed-gradient step, as an attack would take
    x_adv = np.clip(x + 8.0 * np.sign(grads), 0, 255)
    dets_adv = detector.predict(x_adv.astype(np.float32))

    return {
        "dets": torch.from_numpy(dets),
        "grads": torch.from_numpy(np.ascontiguousarray(grads)),
        "dets_adv": torch.from_numpy(dets_adv),
        "x": torch.from_numpy(x.copy()),
    }


if __name__ == "__main__":
    main()
