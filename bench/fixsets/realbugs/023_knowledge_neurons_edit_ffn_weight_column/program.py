"""knowledge-neurons (Hunter-DDM), src/6_edit_knowledge_sampled.py, reduced to a tiny BERT:
editing a fact by subtracting/adding word embeddings to the FFN value vectors
(columns of output.dense.weight) of the knowledge neurons, outside torch.no_grad()."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Dense(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.dense = nn.Linear(d_in, d_out)


class BertLayer(nn.Module):
    def __init__(self, hidden, inter):
        super().__init__()
        self.intermediate = Dense(hidden, inter)
        self.output = Dense(inter, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, h):
        ffn_weights = F.gelu(self.intermediate.dense(h))
        return self.norm(h + self.output.dense(ffn_weights))


class BertEmbeddings(nn.Module):
    def __init__(self, vocab, hidden, max_len):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(max_len, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)

    def forward(self, input_ids, token_type_ids):
        pos = torch.arange(input_ids.shape[1]).unsqueeze(0)
        return self.word_embeddings(input_ids) + self.position_embeddings(pos) + \
            self.token_type_embeddings(token_type_ids)


class Encoder(nn.Module):
    def __init__(self, n_layers, hidden, inter):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(hidden, inter) for _ in range(n_layers)])


class Bert(nn.Module):
    def __init__(self, vocab, hidden, inter, n_layers, max_len):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab, hidden, max_len)
        self.encoder = Encoder(n_layers, hidden, inter)


class BertForMaskedLM(nn.Module):
    def __init__(self, vocab=20, hidden=8, inter=16, n_layers=2, max_len=8):
        super().__init__()
        self.bert = Bert(vocab, hidden, inter, n_layers, max_len)
        self.cls_bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, input_ids, attention_mask, token_type_ids, tgt_pos, tgt_layer):
        h = self.bert.embeddings(input_ids, token_type_ids)
        h = h * attention_mask.unsqueeze(-1)
        for layer in self.bert.encoder.layer:
            h = layer(h)
        logits = h[:, tgt_pos] @ self.bert.embeddings.word_embeddings.weight.t() + self.cls_bias
        return None, logits  # (1, n_vocab)


def main():
    torch.manual_seed(0)
    model = BertForMaskedLM()
    model.eval()
    norm_lambda1, norm_lambda2 = 1.0, 1.0

    def edit(input_ids, tgt_pos, tgt_label_id, kn_bag):
        results = {}
        input_mask = torch.ones_like(input_ids)
        segment_ids = torch.zeros_like(input_ids)
        _, logits = model(input_ids=input_ids, attention_mask=input_mask, token_type_ids=segment_ids, tgt_pos=tgt_pos, tgt_layer=0)  # (1, n_vocab)
        ori_tgt_prob = F.softmax(logits, dim=-1)[0, tgt_label_id]  # scalar
        ori_pred_prob, ori_pred_label_id = F.softmax(logits, dim=-1)[0].max(dim=-1)

        # edit knowledge
        ori_pred_emb = model.bert.embeddings.word_embeddings.weight[ori_pred_label_id.item()]
        tgt_emb = model.bert.embeddings.word_embeddings.weight[tgt_label_id]
        lambda_list_1 = []
        lambda_list_2 = []
        ori_pred_emb_norm = torch.norm(ori_pred_emb)
        tgt_emb_norm = torch.norm(tgt_emb)
        for layer, pos in kn_bag:
            value_norm = torch.norm(model.bert.encoder.layer[layer].output.dense.weight[:, pos])
            lambda_list_1.append(value_norm / ori_pred_emb_norm * norm_lambda1)
            lambda_list_2.append(value_norm / tgt_emb_norm * norm_lambda2)
        for i, (layer, pos) in enumerate(kn_bag):
            model.bert.encoder.layer[layer].output.dense.weight[:, pos] -= ori_pred_emb * lambda_list_1[i]
            model.bert.encoder.layer[layer].output.dense.weight[:, pos] += tgt_emb * lambda_list_2[i]

        _, logits = model(input_ids=input_ids, attention_mask=input_mask, token_type_ids=segment_ids, tgt_pos=tgt_pos, tgt_layer=0)  # (1, n_vocab)
        new_tgt_prob = F.softmax(logits, dim=-1)[0, tgt_label_id]  # scalar
        new_ori_pred_prob = F.softmax(logits, dim=-1)[0, ori_pred_label_id]  # scalar
        new_pred_prob, new_pred_label_id = F.softmax(logits, dim=-1)[0].max(dim=-1)

        results['edited_weights'] = [model.bert.encoder.layer[l].output.dense.weight.detach().clone()
                                     for l in range(len(model.bert.encoder.layer))]

        # recover knowledge
        for i, (layer, pos) in enumerate(kn_bag):
            model.bert.encoder.layer[layer].output.dense.weight[:, pos] += ori_pred_emb * lambda_list_1[i]
            model.bert.encoder.layer[layer].output.dense.weight[:, pos] -= tgt_emb * lambda_list_2[i]

        results['success_updated'] = int(new_pred_label_id.item() == tgt_label_id)
        results['ori_changed'] = int(new_pred_label_id.item() != ori_pred_label_id.item())
        results['tgt_prob_inc'] = new_tgt_prob.item() - ori_tgt_prob.item()
        results['ori_pred_prob'] = ori_pred_prob.item()
        results['new_ori_pred_prob'] = new_ori_pred_prob.item()
        results['new_pred_prob'] = new_pred_prob.item()
        return results

    out = {}
    queries = [(torch.tensor([[3, 7, 1, 9, 4]]), 2, 5, [(0, 3), (1, 10)]),
               (torch.tensor([[6, 2, 8, 1, 11]]), 3, 14, [(1, 0), (1, 7), (0, 12)])]
    for q, (input_ids, tgt_pos, tgt_label_id, kn_bag) in enumerate(queries):
        for k, v in edit(input_ids, tgt_pos, tgt_label_id, kn_bag).items():
            out['q%d.%s' % (q, k)] = v
    for l, layer in enumerate(model.bert.encoder.layer):
        out['final.layer%d.output.dense.weight' % l] = layer.output.dense.weight.detach().clone()
    return out


if __name__ == "__main__":
    main()
