"""GAP_clf.py training (image-dependent perturbations), as of PyTorch 0.4:
normalize_and_scale() and the per-channel clamp edit the generator output
and the reconstruction through .data. Reduced: a tiny frozen CNN stands in
for the pretrained VGG/Inception, 16x16 random images, two iterations.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

from generators import ResnetGenerator

mean_arr = [0.485, 0.456, 0.406]
stddev_arr = [0.229, 0.224, 0.225]
mag_in = 10.0
foolmodel = 'vgg16'


def make_pretrained_clf():
    clf = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
    for p in clf.parameters():
        p.requires_grad = False
    return clf.eval()


def normalize_and_scale(delta_im, mode='train'):
    if foolmodel == 'incv3':
        delta_im = nn.ConstantPad2d((0, -1, -1, 0), 0)(delta_im)  # crop slightly to match inception

    delta_im = delta_im + 1  # now 0..2
    delta_im = delta_im * 0.5  # now 0..1

    # normalize image color channels
    for c in range(3):
        delta_im[:, c, :, :] = (delta_im[:, c, :, :].clone() - mean_arr[c]) / stddev_arr[c]

    # threshold each channel of each image in deltaIm according to inf norm
    # do on a per image basis as the inf norm of each image could be different
    bs = delta_im.size(0)
    for i in range(bs):
        # do per channel l_inf normalization
        for ci in range(3):
            l_inf_channel = delta_im[i, ci, :, :].detach().abs().max()
            mag_in_scaled_c = mag_in/(255.0*stddev_arr[ci])
            delta_im[i, ci, :, :] = delta_im[i, ci, :, :].clone() * np.minimum(1.0, mag_in_scaled_c / l_inf_channel.cpu().numpy())

    return delta_im


def main():
    torch.manual_seed(0)
    pretrained_clf = make_pretrained_clf()
    netG = ResnetGenerator(3, 3, 4, norm_type='batch', act_type='relu', n_blocks=2)
    optimizerG = optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
    criterion_pre = nn.CrossEntropyLoss()

    g = torch.Generator().manual_seed(1)
    training_data = [torch.rand(2, 3, 16, 16, generator=g) for _ in range(2)]
    for image in training_data:
        for c in range(3):
            image[:, c] = (image[:, c] - mean_arr[c]) / stddev_arr[c]

    netG.train()
    losses = []
    for itr, image in enumerate(training_data, 1):
        # least likely class in nontargeted case
        pretrained_label_float = pretrained_clf(image)
        _, target_label = torch.min(pretrained_label_float, 1)

        ## generate per image perturbation
        delta_im = netG(image)
        delta_im = normalize_and_scale(delta_im, 'train')

        netG.zero_grad()

        recons = torch.add(image, delta_im)

        # do clamping per channel
        for cii in range(3):
            recons[:, cii, :, :] = recons[:, cii, :, :].clone().clamp(image[:, cii, :, :].min(), image[:, cii, :, :].max())

        output_pretrained = pretrained_clf(recons)

        # attempt to get closer to least likely class, or target
        loss = torch.log(criterion_pre(output_pretrained, target_label))

        loss.backward()
        optimizerG.step()
        losses.append(loss.item())

    return {'losses': losses, 'netG': [p.detach().clone() for p in netG.parameters()]}


if __name__ == "__main__":
    main()
