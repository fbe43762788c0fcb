"""jadore801120/attention-is-all-you-need-pytorch (2017 version): ScaledDotProductAttention masks the
scores through .data before the softmax. Reported as suspicious (issue #16); under torch 2.13 the
gradients equal those of the out-of-place masked_fill (masked scores get exp(-inf) = 0 weight, and
the scaled bmm saved only q and k)."""
import numpy as np
import torch
import torch.nn as nn


class ScaledDotProductAttention(nn.Module):
    ''' Scaled Dot-Product Attention '''

    def __init__(self, d_model, attn_dropout=0.0):
        super(ScaledDotProductAttention, self).__init__()
        self.temper = np.power(d_model, 0.5)
        self.dropout = nn.Dropout(attn_dropout)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, q, k, v, attn_mask=None):
        attn = torch.bmm(q, k.transpose(1, 2)) / self.temper

        if attn_mask is not None:
            assert attn_mask.size() == attn.size(), \
                'Attention mask shape {} mismatch ' \
                'with Attention logit tensor shape ' \
                '{}.'.format(attn_mask.size(), attn.size())

            attn.data.masked_fill_(attn_mask, -float('inf'))

        attn = self.softmax(attn)
        attn = self.dropout(attn)
        output = torch.bmm(attn, v)

        return output, attn


def get_attn_subsequent_mask(seq):
    ''' Get an attention mask to avoid using the subsequent info.'''
    assert seq.dim() == 2
    attn_shape = (seq.size(0), seq.size(1), seq.size(1))
    subsequent_mask = np.triu(np.ones(attn_shape), k=1).astype('uint8')
    subsequent_mask = torch.from_numpy(subsequent_mask).bool()
    return subsequent_mask


def main():
    torch.manual_seed(0)
    d_model = 8
    attention = ScaledDotProductAttention(d_model)
    proj = nn.Linear(d_model, 3 * d_model)
    seq = torch.ones(2, 5, dtype=torch.long)
    x = torch.randn(2, 5, d_model, requires_grad=True)
    q, k, v = proj(x).chunk(3, dim=-1)
    output, attn = attention(q, k, v, attn_mask=get_attn_subsequent_mask(seq))
    loss = (output ** 2).mean()
    loss.backward()
    return {"output": output.detach(), "attn": attn.detach(), "x_grad": x.grad,
            "proj_weight_grad": proj.weight.grad}


if __name__ == "__main__":
    main()
