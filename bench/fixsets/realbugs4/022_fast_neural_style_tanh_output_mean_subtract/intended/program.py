"""abhiskk/fast-neural-style neural_style/neural_style.py train() after PR #13 (Variable/volatile written
as plain tensors and torch.no_grad(); random images instead of the data set and style image)."""
import torch
from torch.optim import Adam

import utils
from transformer_net import TransformerNet
from vgg16 import Vgg16


def main():
    torch.manual_seed(0)
    batch_size, image_size, lr = 2, 16, 1e-3
    content_weight, style_weight = 1.0, 5.0
    train_loader = [(torch.rand(batch_size, 3, image_size, image_size).mul(255), None) for _ in range(2)]

    transformer = TransformerNet()
    optimizer = Adam(transformer.parameters(), lr)
    mse_loss = torch.nn.MSELoss()

    vgg = Vgg16()

    style = torch.rand(1, 3, image_size, image_size).mul(255)
    style = style.repeat(batch_size, 1, 1, 1)
    style = utils.preprocess_batch(style)
    with torch.no_grad():
        style_v = style
        style_v = utils.subtract_imagenet_mean_batch(style_v)
        features_style = vgg(style_v)
        gram_style = [utils.gram_matrix(y) for y in features_style]

    history = []
    for e in range(1):
        transformer.train()
        agg_content_loss = 0.
        agg_style_loss = 0.
        count = 0
        for batch_id, (x, _) in enumerate(train_loader):
            n_batch = len(x)
            count += n_batch
            optimizer.zero_grad()
            x = utils.preprocess_batch(x)

            y = transformer(x)

            xc = x.data.clone()

            y = utils.subtract_imagenet_mean_batch(y)
            xc = utils.subtract_imagenet_mean_batch(xc)

            features_y = vgg(y)
            features_xc = vgg(xc)

            f_xc_c = features_xc[1].detach()

            content_loss = content_weight * mse_loss(features_y[1], f_xc_c)

            style_loss = 0.
            for m in range(len(features_y)):
                gram_s = gram_style[m].detach()
                gram_y = utils.gram_matrix(features_y[m])
                style_loss += style_weight * mse_loss(gram_y, gram_s[:n_batch, :, :])

            total_loss = content_loss + style_loss
            total_loss.backward()
            optimizer.step()

            agg_content_loss += content_loss.item()
            agg_style_loss += style_loss.item()
            history.append(total_loss.item())

    return {"history": history,
            "conv1_w": transformer.conv1.conv2d.weight.detach().clone(),
            "deconv3_w": transformer.deconv3.conv2d.weight.detach().clone(),
            "in1_scale": transformer.in1.scale.detach().clone()}


if __name__ == "__main__":
    main()
