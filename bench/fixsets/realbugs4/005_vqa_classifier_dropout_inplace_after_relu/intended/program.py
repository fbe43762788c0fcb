"""bottom-up-attention-vqa (BierOne): answer classifier trained with the soft-score BCE loss."""
import torch
import torch.nn.functional as F

from classifier import SimpleClassifier


def instance_bce_with_logits(logits, labels):
    assert logits.dim() == 2
    loss = F.binary_cross_entropy_with_logits(logits, labels)
    loss *= labels.size(1)
    return loss


def main():
    torch.manual_seed(0)
    num_hid, num_ans = 8, 6
    classifier = SimpleClassifier(in_dim=(num_hid, 10), hid_dim=(num_hid, 2 * num_hid),
                                  out_dim=num_ans, dropout=0.5)
    optim = torch.optim.Adamax(classifier.parameters(), lr=2e-3)
    q_emb = torch.randn(4, num_hid)
    v_emb = torch.randn(4, 10)
    answers = torch.rand(4, num_ans)
    losses = []
    for _ in range(2):
        optim.zero_grad()
        pred = classifier(q_emb, v_emb)
        loss = instance_bce_with_logits(pred, answers)
        loss.backward()
        optim.step()
        losses.append(loss.detach())
    return {"losses": losses, "pred": pred.detach(),
            "main0_weight": classifier.main[0].weight.detach().clone(),
            "main3_weight": classifier.main[3].weight.detach().clone()}


if __name__ == "__main__":
    main()
