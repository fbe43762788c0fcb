"""Train tiny transformers models on CPU: proof that their modeling code runs forward and backward without autograd
errors, and the list of modeling files it used (the corpus `bench/precision.py` checks).

Each model family is built from a tiny config (hidden size 32, 2 layers, a small vocabulary; nothing is
downloaded), put in train mode, and run for one step: forward with labels, loss, backward, one AdamW step. The
models run in a child process whose PYTHONPATH holds transformers==5.23.0 (unpacked without dependencies by
`bench/_fetch.py`) and its runtime dependencies (installed into a separate folder, never torch), so they use the
installed torch.

Usage:
  python bench/train_models.py                 one line per family, then the modeling files that ran
  python bench/train_models.py --json FILE     also write the results as JSON (families, files)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _fetch  # noqa: E402

RESULT_MARK = "@@TRAIN-MODELS@@ "
TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, vocab_size=99)


def _families(hazards: bool = False):
    """(name, builder) pairs; each builder returns (model, inputs) with labels so that forward returns a loss.

    With `hazards`, the configurations known to break autograd with an in-place write instead.
    """
    import torch
    import transformers as tf

    ids = torch.randint(0, 99, (2, 7))
    lm = dict(input_ids=ids, labels=ids)

    def bert():
        return tf.BertForMaskedLM(tf.BertConfig(**TINY)), lm

    def roberta():
        return tf.RobertaForMaskedLM(tf.RobertaConfig(**TINY, pad_token_id=1)), dict(input_ids=ids % 97 + 2, labels=ids)

    def distilbert():
        cfg = tf.DistilBertConfig(dim=32, n_layers=2, n_heads=4, hidden_dim=64, vocab_size=99)
        return tf.DistilBertForMaskedLM(cfg), lm

    def gpt2():
        cfg = tf.GPT2Config(n_embd=32, n_layer=2, n_head=4, n_inner=64, vocab_size=99, n_positions=64)
        return tf.GPT2LMHeadModel(cfg), lm

    def llama():
        return tf.LlamaForCausalLM(tf.LlamaConfig(**TINY, num_key_value_heads=2)), lm

    def mistral():
        return tf.MistralForCausalLM(tf.MistralConfig(**TINY, num_key_value_heads=2)), lm

    def qwen2():
        return tf.Qwen2ForCausalLM(tf.Qwen2Config(**TINY, num_key_value_heads=2)), lm

    def gemma():
        return tf.GemmaForCausalLM(tf.GemmaConfig(**TINY, num_key_value_heads=2, head_dim=8)), lm

    def phi3():
        return tf.Phi3ForCausalLM(tf.Phi3Config(**TINY, num_key_value_heads=2, pad_token_id=0)), lm

    def t5():
        cfg = tf.T5Config(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, vocab_size=99,
                          decoder_start_token_id=0, pad_token_id=0)
        return tf.T5ForConditionalGeneration(cfg), lm

    def bart():
        cfg = tf.BartConfig(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                            decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=99,
                            max_position_embeddings=64)
        return tf.BartForConditionalGeneration(cfg), lm

    def vit():
        cfg = tf.ViTConfig(**{k: v for k, v in TINY.items() if k != "vocab_size"}, image_size=16, patch_size=4,
                           num_labels=3)
        return tf.ViTForImageClassification(cfg), dict(pixel_values=torch.randn(2, 3, 16, 16),
                                                      labels=torch.tensor([0, 2]))

    def doge_moe():  # transformers 5.23.0 bug: `routing_weights /= ...` writes the softmax output autograd saved
        cfg = tf.DogeConfig(**TINY, num_key_value_heads=2, is_moe=True, num_experts=16, num_experts_per_tok=2,
                            norm_topk_prob=True)
        return tf.DogeForCausalLM(cfg), lm

    if hazards:
        return [("Doge (MoE, norm_topk_prob)", doge_moe)]
    return [("BERT", bert), ("RoBERTa", roberta), ("DistilBERT", distilbert), ("GPT-2", gpt2), ("LLaMA", llama),
            ("Mistral", mistral), ("Qwen2", qwen2), ("Gemma", gemma), ("Phi-3", phi3), ("T5", t5), ("BART", bart),
            ("ViT", vit)]


def _child() -> None:
    """Run every family for one training step; print one JSON line with the outcome and the files used."""
    import inspect
    import traceback

    import torch
    import transformers

    torch.manual_seed(0)
    torch.set_num_threads(1)
    package = Path(transformers.__file__).resolve().parent
    out = {"torch": torch.__version__, "torch_file": torch.__file__, "transformers": transformers.__version__,
           "families": []}
    for name, build in _families():
        entry = {"family": name, "ok": False, "loss": None, "files": [], "error": ""}
        try:
            model, inputs = build()
            model.train()
            files = set()
            for module in model.modules():
                source = inspect.getsourcefile(type(module))
                if source and Path(source).resolve().is_relative_to(package):
                    files.add(str(Path(source).resolve().relative_to(package)))
            entry["files"] = sorted(files)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
            loss = model(**inputs).loss
            loss.backward()
            grads = sum(p.grad is not None for p in model.parameters())
            optimizer.step()
            optimizer.zero_grad()
            entry.update(ok=bool(torch.isfinite(loss)) and grads > 0, loss=round(float(loss), 4), grads=grads,
                         params=sum(1 for _ in model.parameters()))
        except Exception as exc:  # noqa: BLE001 - a family that fails is reported, the others still run
            entry["error"] = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        out["families"].append(entry)
    out["hazards"] = [_run_hazard(name, build, package) for name, build in _families(hazards=True)]
    print(RESULT_MARK + json.dumps(out), flush=True)


def _run_hazard(name: str, build, package: Path) -> dict:
    """Train one known-broken configuration under anomaly mode: the error, and the forward lines (in transformers)
    of the op whose saved tensor was modified."""
    import re
    import warnings

    import torch

    entry = {"family": name, "raised": "", "saved_at": []}
    model, inputs = build()
    model.train()
    with warnings.catch_warnings(record=True) as caught, torch.autograd.detect_anomaly():
        warnings.simplefilter("always")
        try:
            model(**inputs).loss.backward()
        except RuntimeError as exc:
            entry["raised"] = str(exc).splitlines()[0].split(" Hint:")[0]
    for warning in caught:
        frames = re.findall(r'File "([^"]+)", line (\d+)', str(warning.message))
        inside = [(f, int(n)) for f, n in frames if Path(f).resolve().is_relative_to(package)]
        if inside:  # the innermost frame in transformers: where the saving op ran
            f, n = inside[-1]
            entry["saved_at"].append([str(Path(f).resolve().relative_to(package)), n])
    return entry


def run_models() -> dict:
    """Train every family once in a child process; the child's results, with `package` (the transformers folder)."""
    tree = _fetch.source_tree(*_fetch.TRANSFORMERS)
    deps = _fetch.runtime_deps(*_fetch.TRANSFORMERS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(deps)]), OMP_NUM_THREADS="1",
               TRANSFORMERS_OFFLINE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_VERBOSITY="error")
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--_child"], capture_output=True,
                          text=True, env=env, timeout=900)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            result = json.loads(line[len(RESULT_MARK):])
            result["package"] = str(tree / "transformers")
            return result
    raise SystemExit(f"train_models: the child exited {proc.returncode}: {(proc.stdout + proc.stderr)[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--_child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._child:
        _child()
        return 0
    result = run_models()
    print(f"torch {result['torch']} ({result['torch_file']}), transformers {result['transformers']}")
    for fam in result["families"]:
        state = "ran" if fam["ok"] else "FAILED"
        detail = f"loss {fam['loss']}, grads on {fam.get('grads')}/{fam.get('params')} parameters" if fam["ok"] \
            else fam["error"].splitlines()[-1] if fam["error"] else "no finite loss"
        print(f"{fam['family']:<11} {state:<6} {detail}  files: {', '.join(fam['files'])}")
    for hazard in result.get("hazards", []):
        where = ", ".join(f"transformers/{f}:{n}" for f, n in hazard["saved_at"]) or "?"
        print(f"known hazard: {hazard['family']}: {hazard['raised'] or 'did NOT raise'} (saved tensor made at {where})")
    files = sorted({f for fam in result["families"] if fam["ok"] for f in fam["files"]})
    ran = sum(f["ok"] for f in result["families"])
    print(f"{ran}/{len(result['families'])} families ran forward + backward + AdamW step; "
          f"{len(files)} modeling files used:")
    for f in files:
        print(f"  transformers/{f}")
    if args.json:
        target = Path(args.json)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        tmp.replace(target)
    return 0 if ran == len(result["families"]) else 1


if __name__ == "__main__":
    sys.exit(main())
