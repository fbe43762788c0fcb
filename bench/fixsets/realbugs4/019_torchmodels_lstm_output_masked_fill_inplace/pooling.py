"""kaniblu/pytorch-models torchmodels/modules/pooling.py (AbstractPooling, MeanPooling)."""
import common
import utils


class AbstractPooling(common.Module):

    def __init__(self, dim):
        super(AbstractPooling, self).__init__()
        self.dim = dim

    def forward(self, x, lens=None):
        raise NotImplementedError()


class MeanPooling(AbstractPooling):
    name = "mean"

    def forward(self, x, lens=None):
        if lens is None:
            return x.mean(1)
        mask = utils.mask(lens, x.size(1))
        x = x.masked_fill(~mask.unsqueeze(-1), 0)
        return x.sum(1) / lens.unsqueeze(-1).float()
