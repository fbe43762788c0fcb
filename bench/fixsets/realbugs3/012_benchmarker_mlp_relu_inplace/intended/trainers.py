import torch
import torch.nn.functional as F


class ContrastiveLoss:
    def __init__(self, pos_margin=0.0, neg_margin=1.0):
        self.pos_margin = pos_margin
        self.neg_margin = neg_margin

    def __call__(self, embeddings, labels):
        emb = F.normalize(embeddings, p=2, dim=1)
        dist = torch.cdist(emb, emb)
        same = labels.unsqueeze(0) == labels.unsqueeze(1)
        eye = torch.eye(len(labels), dtype=torch.bool)
        pos = F.relu(dist[same & ~eye] - self.pos_margin)
        neg = F.relu(self.neg_margin - dist[~same])
        return pos.mean() + neg.mean()


class MetricLossOnly:
    def __init__(self, models, optimizers, loss_funcs, loss_weights):
        self.models = models
        self.optimizers = optimizers
        self.loss_funcs = loss_funcs
        self.loss_weights = loss_weights
        self.losses = {}

    def compute_embeddings(self, data):
        trunk_output = self.models["trunk"](data)
        return self.models["embedder"](trunk_output)

    def maybe_get_metric_loss(self, embeddings, labels):
        return self.loss_funcs["metric_loss"](embeddings, labels)

    def train_step(self, curr_batch):
        for opt in self.optimizers.values():
            opt.zero_grad()
        self.calculate_loss(curr_batch)
        total = sum(self.loss_weights[k] * v for k, v in self.losses.items())
        total.backward()
        for opt in self.optimizers.values():
            opt.step()
        return total


class TrainWithClassifier(MetricLossOnly):
    def calculate_loss(self, curr_batch):
        data, labels = curr_batch
        embeddings = self.compute_embeddings(data)
        logits = self.maybe_get_logits(embeddings)
        self.losses["metric_loss"] = self.maybe_get_metric_loss(embeddings, labels)
        self.losses["classifier_loss"] = self.maybe_get_classifier_loss(logits, labels)

    def maybe_get_classifier_loss(self, logits, labels):
        if logits is not None:
            return self.loss_funcs["classifier_loss"](logits, labels)
        return 0

    def maybe_get_logits(self, embeddings):
        if self.models.get("classifier", None) and self.loss_weights.get("classifier_loss", 0) > 0:
            return self.models["classifier"](embeddings)
        return None
