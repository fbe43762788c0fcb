import torch


def predict_patch(sub_filt, pred_patch, patch_row, patch_col, filter_sz=3):
    """Scatter each predicted node through its own filter onto the surrounding patch."""
    sub_patch = torch.zeros(2 * filter_sz - 1, 2 * filter_sz - 1, pred_patch.size(2))
    for i in range(filter_sz):
        for j in range(filter_sz):
            # index correct filter from filter tensor
            sub_filt_col = (patch_col + j) * filter_sz
            sub_filt_row = (patch_row + i) * filter_sz
            sub_filt_patch = sub_filt[sub_filt_row:(sub_filt_row + filter_sz), sub_filt_col:(sub_filt_col + filter_sz), :]
            # multiply filter and pred_patch and sum onto sub patch
            sub_patch[i:(i + filter_sz), j:(j + filter_sz), :] += (sub_filt_patch * pred_patch[i, j]).sum(dim=3)
    return sub_patch


def main():
    torch.manual_seed(0)
    filter_sz = 3
    sub_filt = torch.randn(filter_sz * filter_sz, filter_sz * filter_sz, 4, 2, requires_grad=True)
    pred_patch = torch.randn(filter_sz, filter_sz, 4, 2, requires_grad=True)
    target = torch.randn(2 * filter_sz - 1, 2 * filter_sz - 1, 4)
    sub_patch = predict_patch(sub_filt, pred_patch, 0, 0, filter_sz)
    loss = ((sub_patch - target) ** 2).mean()
    loss.backward()
    return {"sub_patch": sub_patch.detach(), "loss": loss.item(),
            "sub_filt.grad": sub_filt.grad, "pred_patch.grad": pred_patch.grad}


if __name__ == "__main__":
    main()
