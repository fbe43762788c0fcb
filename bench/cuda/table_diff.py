"""Differences between two saved-tensor tables (CPU and CUDA, generated with the same torch), op by op.

    python bench/cuda/table_diff.py CPU.json CUDA.json [--dtypes-a dtypes_cpu.json --dtypes-b dtypes_cuda.json]
                                    [--json diff.json] [--markdown diff.md]

Op variants are matched by their call pattern (argument kinds, keyword kinds, bool/None literals, grad-able
slots); several variants with one pattern are compared as multisets of their results (saved items per
requires-grad config, view, differentiable, outputs, dtype relation). Module samples are matched by
(training, parameters, buffers, inputs, outputs). Also compared: in-place method/function tables, factories,
functions/methods keyword maps, skipped lists and the OpInfo dtype each device picks.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path


def _j(x) -> str:
    return json.dumps(x, sort_keys=True)


VARIANT_KEY = ("args", "kwargs", "values", "grad")
VARIANT_RESULT = ("saved", "view", "differentiable", "outputs", "dtype")
MODULE_KEY = ("training", "params", "buffers", "inputs", "outputs")
MODULE_RESULT = ("saved", "dtype")


def _group(items, key_fields, result_fields):
    g = defaultdict(list)
    for it in items:
        g[_j({k: it.get(k) for k in key_fields})].append({k: it.get(k) for k in result_fields})
    return {k: sorted(v, key=_j) for k, v in g.items()}


def _saved_delta(ra: dict, rb: dict) -> dict:
    """Per requires-grad config: items saved only on a, only on b."""
    out = {}
    sa, sb = ra.get("saved") or {}, rb.get("saved") or {}
    for cfg in sorted(set(sa) | set(sb)):
        a, b = set(sa.get(cfg, [])), set(sb.get(cfg, []))
        if cfg not in sa or cfg not in sb or a != b:
            out[cfg] = {"only_a": sorted(a - b), "only_b": sorted(b - a),
                        "a": sa.get(cfg), "b": sb.get(cfg)}
    return out


def _compare_groups(ga: dict, gb: dict) -> list[dict]:
    diffs = []
    for key in sorted(set(ga) | set(gb)):
        la, lb = ga.get(key), gb.get(key)
        if la == lb:
            continue
        d = {"pattern": json.loads(key)}
        if la is None or lb is None:
            d["only_in"] = "a" if lb is None else "b"
            d["results"] = la if lb is None else lb
        elif len(la) == 1 and len(lb) == 1:
            ra, rb = la[0], lb[0]
            d["changed"] = {f: {"a": ra.get(f), "b": rb.get(f)} for f in ra if f != "saved" and ra.get(f) != rb.get(f)}
            sd = _saved_delta(ra, rb)
            if sd:
                d["saved"] = sd
        else:
            d["a"], d["b"] = la, lb
        diffs.append(d)
    return diffs


def diff_tables(a: dict, b: dict) -> dict:
    out: dict = {"torch": [a.get("torch_version"), b.get("torch_version")], "devices": [a.get("device"), b.get("device")]}
    # ops
    ops = {}
    for name in sorted(set(a["ops"]) | set(b["ops"])):
        oa, ob = a["ops"].get(name), b["ops"].get(name)
        if oa == ob:
            continue
        if oa is None or ob is None:
            ops[name] = {"only_in": "a" if ob is None else "b"}
            continue
        d = {}
        top = {k: {"a": oa.get(k), "b": ob.get(k)} for k in sorted(set(oa) | set(ob))
               if k != "variants" and oa.get(k) != ob.get(k)}
        if top:
            d["fields"] = top
        vd = _compare_groups(_group(oa.get("variants", []), VARIANT_KEY, VARIANT_RESULT),
                             _group(ob.get("variants", []), VARIANT_KEY, VARIANT_RESULT))
        if vd:
            d["variants"] = vd
        if d:
            ops[name] = d
    out["ops"] = ops
    # modules
    mods = {}
    for name in sorted(set(a["modules"]) | set(b["modules"])):
        ma, mb = a["modules"].get(name), b["modules"].get(name)
        if ma == mb:
            continue
        if ma is None or mb is None:
            mods[name] = {"only_in": "a" if mb is None else "b"}
            continue
        d = {}
        top = {k: {"a": ma.get(k), "b": mb.get(k)} for k in sorted(set(ma) | set(mb))
               if k != "samples" and ma.get(k) != mb.get(k)}
        if top:
            d["fields"] = top
        sd = _compare_groups(_group(ma.get("samples", []), MODULE_KEY, MODULE_RESULT),
                             _group(mb.get("samples", []), MODULE_KEY, MODULE_RESULT))
        if sd:
            d["samples"] = sd
        if d:
            mods[name] = d
    out["modules"] = mods
    for section in ("inplace_methods", "inplace_functions", "functions", "methods", "factories"):
        sa, sb = a.get(section, {}), b.get(section, {})
        out[section] = {k: {"a": sa.get(k), "b": sb.get(k)} for k in sorted(set(sa) | set(sb)) if sa.get(k) != sb.get(k)}
    out["skipped"] = {k: {"only_a": sorted(set(a["skipped"].get(k, [])) - set(b["skipped"].get(k, []))),
                          "only_b": sorted(set(b["skipped"].get(k, [])) - set(a["skipped"].get(k, [])))}
                      for k in sorted(set(a["skipped"]) | set(b["skipped"]))}
    out["stats"] = {k: {"a": a["stats"].get(k), "b": b["stats"].get(k)}
                    for k in sorted(set(a["stats"]) | set(b["stats"])) if a["stats"].get(k) != b["stats"].get(k)}
    return out


def _fmt_pattern(p: dict) -> str:
    args = ",".join(p.get("args") or [])
    kw = ",".join(f"{k}={v}" for k, v in sorted((p.get("kwargs") or {}).items()))
    vals = ",".join(f"{k}={v}" for k, v in sorted((p.get("values") or {}).items()))
    s = f"({args}{';' + kw if kw else ''})"
    if vals:
        s += f" values {vals}"
    s += f" grad {p.get('grad')}"
    return s


def markdown(d: dict, dtypes: dict | None) -> str:
    la, lb = d["devices"]
    L = [f"# Saved-tensor table: {la} (a) vs {lb} (b), torch {d['torch'][0]} / {d['torch'][1]}", ""]
    L.append(f"- ops differing: {len(d['ops'])}; modules differing: {len(d['modules'])}; "
             f"in-place methods differing: {len(d['inplace_methods'])}; in-place functions: "
             f"{len(d['inplace_functions'])}; functions (keyword maps): {len(d['functions'])}; methods: "
             f"{len(d['methods'])}; factories: {len(d['factories'])}")
    if dtypes is not None:
        L.append(f"- OpInfos whose measured dtype differs ({la} -> {lb}): {len(dtypes)}")
    L.append("")
    L.append("## Ops")
    for name, od in d["ops"].items():
        L.append(f"### {name}")
        if "only_in" in od:
            L.append(f"- only in {la if od['only_in'] == 'a' else lb}")
            continue
        for k, v in od.get("fields", {}).items():
            L.append(f"- `{k}`: {la} {_j(v['a'])} -> {lb} {_j(v['b'])}")
        for vd in od.get("variants", []):
            pat = _fmt_pattern(vd["pattern"])
            if "only_in" in vd:
                L.append(f"- variant {pat}: only on {la if vd['only_in'] == 'a' else lb}: {_j(vd['results'])}")
            elif "a" in vd:
                L.append(f"- variant {pat}: {la} {_j(vd['a'])} -> {lb} {_j(vd['b'])}")
            else:
                for f, v in vd.get("changed", {}).items():
                    L.append(f"- variant {pat}: `{f}` {la} {_j(v['a'])} -> {lb} {_j(v['b'])}")
                for cfg, s in vd.get("saved", {}).items():
                    L.append(f"- variant {pat}: config {cfg}: {la} saves {s['a']} / {lb} saves {s['b']}"
                             f" (only {la}: {s['only_a']}, only {lb}: {s['only_b']})")
    L.append("")
    L.append("## Modules")
    for name, md in d["modules"].items():
        L.append(f"### {name}")
        if "only_in" in md:
            L.append(f"- only in {la if md['only_in'] == 'a' else lb}")
            continue
        for k, v in md.get("fields", {}).items():
            L.append(f"- `{k}`: {la} {_j(v['a'])} -> {lb} {_j(v['b'])}")
        for sd in md.get("samples", []):
            pat = _j(sd["pattern"])
            if "only_in" in sd:
                L.append(f"- sample {pat}: only on {la if sd['only_in'] == 'a' else lb}: {_j(sd['results'])}")
            elif "a" in sd:
                L.append(f"- sample {pat}: {la} {_j(sd['a'])} -> {lb} {_j(sd['b'])}")
            else:
                for f, v in sd.get("changed", {}).items():
                    L.append(f"- sample {pat}: `{f}` {la} {_j(v['a'])} -> {lb} {_j(v['b'])}")
                for cfg, s in sd.get("saved", {}).items():
                    L.append(f"- sample {pat}: config {cfg}: {la} saves {s['a']} / {lb} saves {s['b']}")
    for section in ("inplace_methods", "inplace_functions", "functions", "methods", "factories"):
        if d[section]:
            L.append("")
            L.append(f"## {section}")
            for k, v in d[section].items():
                L.append(f"- {k}: {la} {_j(v['a'])} -> {lb} {_j(v['b'])}")
    L.append("")
    L.append("## Skipped")
    for k, v in d["skipped"].items():
        L.append(f"- {k}: only {la}: {v['only_a']}; only {lb}: {v['only_b']}")
    L.append("")
    L.append("## Stats that differ")
    for k, v in d["stats"].items():
        L.append(f"- {k}: {la} {v['a']} / {lb} {v['b']}")
    if dtypes:
        L.append("")
        L.append("## OpInfo dtype picked")
        for k, v in dtypes.items():
            L.append(f"- {k}: {la} {v['a']} -> {lb} {v['b']}")
    return "\n".join(L) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--dtypes-a", type=Path)
    ap.add_argument("--dtypes-b", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path)
    ns = ap.parse_args()
    a, b = json.loads(ns.a.read_text()), json.loads(ns.b.read_text())
    d = diff_tables(a, b)
    dtypes = None
    if ns.dtypes_a and ns.dtypes_b:
        da, db = json.loads(ns.dtypes_a.read_text()), json.loads(ns.dtypes_b.read_text())
        dtypes = {k: {"a": da.get(k), "b": db.get(k)} for k in sorted(set(da) | set(db)) if da.get(k) != db.get(k)}
        d["opinfo_dtypes"] = dtypes
    if ns.json:
        ns.json.write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
    md = markdown(d, dtypes)
    if ns.markdown:
        ns.markdown.write_text(md)
    else:
        sys.stdout.write(md)
    print(f"ops differing: {len(d['ops'])}, modules differing: {len(d['modules'])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
