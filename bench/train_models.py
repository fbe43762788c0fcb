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
  python bench/train_models.py --transformers PATH
                                               use the transformers package in PATH (the folder that holds the
                                               `transformers` package, or the package folder itself; for example a
                                               patched copy) instead of the fetched one
  python bench/train_models.py --results FILE [--tensors FILE.pt]
                                               exact mode: also write, per family, the loss (`float.hex`), SHA-256
                                               hashes of the logits and of every parameter's gradient (before the
                                               step) and value (after the AdamW step), and the transformers files
                                               whose Python code ran (building the model, forward, backward, step);
                                               `--tensors` also saves those tensors (`torch.save`) so that two runs
                                               can be compared value by value. In exact mode each family is seeded
                                               on its own (`torch.manual_seed(1000 + index)`), so its results do not
                                               depend on what the families before it did; the default mode (one
                                               seed for the whole run) and its output are unchanged.
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


def _tensor_hash(t) -> str:
    """SHA-256 of a tensor's dtype, shape and bytes (equal hashes: bit-identical tensors)."""
    import hashlib

    import torch

    t = t.detach().cpu().contiguous()
    digest = hashlib.sha256(f"{t.dtype}|{tuple(t.shape)}|".encode())
    digest.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


class _FilesRun:
    """Collects the files (inside `package`) whose Python functions are called while it is active (`sys.setprofile`)."""

    def __init__(self, package: Path):
        self.package = str(package) + os.sep
        self.files: set[str] = set()

    def _profile(self, frame, event, arg):
        if event == "call":
            name = frame.f_code.co_filename
            if name.startswith(self.package):
                self.files.add(name[len(self.package):])

    def __enter__(self):
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc):
        sys.setprofile(None)


def _child(exact: bool = False, tensors_file: str | None = None) -> None:
    """Run every family for one training step; print one JSON line with the outcome and the files used.

    With `exact`, each family is seeded on its own and its entry gets `exact`: the loss as `float.hex`, hashes of
    the logits, of every gradient and of every parameter after the step, and the files run; with `tensors_file`,
    those tensors are saved there too."""
    import contextlib
    import inspect
    import traceback

    import torch
    import transformers

    torch.manual_seed(0)
    torch.set_num_threads(1)
    package = Path(transformers.__file__).resolve().parent
    out = {"torch": torch.__version__, "torch_file": torch.__file__, "transformers": transformers.__version__,
           "families": []}
    if exact:
        out["transformers_file"] = transformers.__file__
    saved = {}
    for index, (name, build) in enumerate(_families()):
        entry = {"family": name, "ok": False, "loss": None, "files": [], "error": ""}
        run = _FilesRun(Path(transformers.__file__).parent) if exact else contextlib.nullcontext()
        try:
            if exact:
                torch.manual_seed(1000 + index)
            with run:
                model, inputs = build()
            model.train()
            files = set()
            for module in model.modules():
                source = inspect.getsourcefile(type(module))
                if source and Path(source).resolve().is_relative_to(package):
                    files.add(str(Path(source).resolve().relative_to(package)))
            entry["files"] = sorted(files)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
            if not exact:
                loss = model(**inputs).loss
                loss.backward()
                grads = sum(p.grad is not None for p in model.parameters())
                optimizer.step()
                optimizer.zero_grad()
            else:
                with run:
                    output = model(**inputs)
                    loss = output.loss
                    loss.backward()
                    grads = sum(p.grad is not None for p in model.parameters())
                    named_grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()
                                   if p.grad is not None}
                    optimizer.step()
                    optimizer.zero_grad()
                params = {n: p.detach().clone() for n, p in model.named_parameters()}
                logits = getattr(output, "logits", None)
                entry["exact"] = {
                    "seed": 1000 + index, "loss_hex": float(loss).hex(), "loss_hash": _tensor_hash(loss),
                    "logits_hash": _tensor_hash(logits) if logits is not None else None,
                    "grads": {n: _tensor_hash(g) for n, g in named_grads.items()},
                    "params": {n: _tensor_hash(p) for n, p in params.items()},
                    "files_run": sorted(run.files),
                }
                if tensors_file:
                    saved[name] = {"loss": loss.detach().clone(), "logits": None if logits is None else
                                   logits.detach().clone(), "grads": named_grads, "params": params}
            entry.update(ok=bool(torch.isfinite(loss)) and grads > 0, loss=round(float(loss), 4), grads=grads,
                         params=sum(1 for _ in model.parameters()))
        except Exception as exc:  # noqa: BLE001 - a family that fails is reported, the others still run
            entry["error"] = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            if exact:
                entry.setdefault("exact", {})["files_run"] = sorted(run.files)
        out["families"].append(entry)
    if tensors_file:
        torch.save(saved, tensors_file)
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


def transformers_root(path: str | os.PathLike | None = None) -> Path:
    """The folder to put on PYTHONPATH for the transformers package: `path` (the folder holding `transformers/`, or
    the package folder itself), else the fetched transformers==5.23.0."""
    if path is None:
        return _fetch.source_tree(*_fetch.TRANSFORMERS)
    root = Path(path).resolve()
    if root.name == "transformers" and (root / "__init__.py").is_file():
        root = root.parent
    if not (root / "transformers" / "__init__.py").is_file():
        raise SystemExit(f"train_models: no transformers package in {path}")
    return root


def run_models(transformers: str | os.PathLike | None = None, exact: bool = False,
               tensors_file: str | os.PathLike | None = None) -> dict:
    """Train every family once in a child process; the child's results, with `package` (the transformers folder).

    `transformers`: the folder holding the package to use (default: the fetched one); `exact`: exact mode (per-family
    seeds and `exact` results, see the module docstring); `tensors_file`: also save the tensors there (implies
    `exact`)."""
    tree = transformers_root(transformers)
    deps = _fetch.runtime_deps(*_fetch.TRANSFORMERS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(deps)]), OMP_NUM_THREADS="1",
               TRANSFORMERS_OFFLINE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_VERBOSITY="error")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_child"]
    if exact or tensors_file:
        cmd.append("--_exact")
    if tensors_file:
        cmd += ["--_tensors", str(Path(tensors_file).resolve())]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            result = json.loads(line[len(RESULT_MARK):])
            result["package"] = str(tree / "transformers")
            return result
    raise SystemExit(f"train_models: the child exited {proc.returncode}: {(proc.stdout + proc.stderr)[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--transformers", metavar="PATH",
                        help="the folder holding the transformers package to use (default: the fetched 5.23.0)")
    parser.add_argument("--results", metavar="FILE",
                        help="exact mode: write per-family losses, hashes of logits, gradients and parameters after "
                             "the step, and the files run, as JSON")
    parser.add_argument("--tensors", metavar="FILE",
                        help="exact mode: also save the losses, logits, gradients and parameters (torch.save)")
    parser.add_argument("--_child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--_exact", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--_tensors", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._child:
        _child(exact=args._exact, tensors_file=args._tensors)
        return 0
    exact = bool(args.results or args.tensors)
    result = run_models(args.transformers, exact=exact, tensors_file=args.tensors)
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
    for target_name, data in ((args.json, result), (args.results, result if exact else None)):
        if target_name and data is not None:
            target = Path(target_name)
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
            tmp.replace(target)
    return 0 if ran == len(result["families"]) else 1


if __name__ == "__main__":
    sys.exit(main())
