"""UnsupDIS (kail8/UnsupDIS-pytorch) transform(): homography warp with the guard
t_s_flat[t_s_flat.abs() < eps] = eps. The issue (#26) hit a multi-output-view error at batch
size 1, where reshape returns a view of the chunk output; with a batch of 2 reshape copies, the
write lands in a fresh tensor nothing saved, and the guard is correct."""
import torch
import torch.nn.functional as F


def _interpolate(im, x, y, out_size):
    # bilinear sampling of im (b, h, w, c) at pixel coordinates x, y (flattened over the batch)
    bs, height, width, channels = im.shape
    x = x.clamp(0, width - 1)
    y = y.clamp(0, height - 1)
    x0 = torch.floor(x).detach(); y0 = torch.floor(y).detach()
    x1 = (x0 + 1).clamp(max=width - 1); y1 = (y0 + 1).clamp(max=height - 1)
    base = (torch.arange(bs) * width * height).repeat_interleave(out_size[0] * out_size[1])
    im_flat = im.reshape(-1, channels)

    def gather(yy, xx):
        return im_flat[(base + yy.long() * width + xx.long())]

    wa = ((x1 - x) * (y1 - y)).unsqueeze(1)
    wb = ((x1 - x) * (y - y0)).unsqueeze(1)
    wc = ((x - x0) * (y1 - y)).unsqueeze(1)
    wd = ((x - x0) * (y - y0)).unsqueeze(1)
    return wa * gather(y0, x0) + wb * gather(y1, x0) + wc * gather(y0, x1) + wd * gather(y1, x1)


def transform(image2_tensor, H_tf):
    def _meshgrid(height, width):
        x_t = torch.linspace(0, width - 1, width).unsqueeze(0).expand(height, width)
        y_t = torch.linspace(0, height - 1, height).unsqueeze(1).expand(height, width)
        x_t_flat = x_t.reshape(1, -1)
        y_t_flat = y_t.reshape(1, -1)
        ones = torch.ones_like(x_t_flat)
        grid = torch.cat([x_t_flat, y_t_flat, ones], dim=0)
        return grid

    bs, nc, height, width = image2_tensor.shape
    H_tf = H_tf.reshape(-1, 3, 3).float()
    grid = _meshgrid(height, width).unsqueeze(0).expand(bs, -1, -1)
    T_g = torch.bmm(H_tf, grid)
    x_s, y_s, t_s = torch.chunk(T_g, 3, dim=1)
    t_s_flat = t_s.reshape(-1)
    eps, maximal = 1e-2, 10.
    t_s_flat[t_s_flat.abs() < eps] = eps
    x_s_flat = x_s.reshape(-1) / t_s_flat
    y_s_flat = y_s.reshape(-1) / t_s_flat
    input_transformed = _interpolate(image2_tensor.permute(0, 2, 3, 1), x_s_flat, y_s_flat, (height, width))
    output = input_transformed.reshape(bs, height, width, nc).permute(0, 3, 1, 2)
    return output


def main():
    torch.manual_seed(0)
    img1 = torch.rand(2, 1, 6, 6)
    img2 = torch.rand(2, 1, 6, 6)
    offsets = torch.zeros(2, 8, requires_grad=True)
    head = torch.nn.Linear(8, 8)
    eye = torch.eye(3).reshape(1, 9).repeat(2, 1)
    h8 = head(offsets) * 0.01
    H = eye + torch.cat([h8, torch.zeros(2, 1)], dim=1)
    H = H.clone()
    H[0, 6] = 0.2  # make one row of t_s go through the eps guard region
    H[0, 8] = -0.2
    warped = transform(img2, H)
    loss = F.l1_loss(warped, img1)
    loss.backward()
    return {"warped": warped.detach(), "loss": loss.detach(), "offsets_grad": offsets.grad,
            "head_weight_grad": head.weight.grad}


if __name__ == "__main__":
    main()
