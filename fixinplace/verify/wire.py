"""The results channel from a runner (the forked process that runs user code) to the judge that forked it.

A message is a JSON header (numbers, strings, lists, dicts; tensors as `{"tensor": index, "dtype", "shape"}`;
complex numbers as `{"complex": [re, im]}`; a `Side` as `{"side": {...}}`) followed by the raw bytes of each tensor,
framed by lengths and closed by an HMAC-SHA256 under a key the judge draws for each runner. Decoding builds plain
CPU tensors with the judge's own torch and never runs code the runner sent (no pickle in this direction).

Tensors are turned into bytes with references to torch's functions taken when this module is imported, in the
judge, before any user code: a program that replaces `torch.Tensor.contiguous`, `clone` or `data_ptr` cannot change
what is sent. See docs/reliability.md for what this defends and what it does not.
"""

from __future__ import annotations

import ctypes
import hashlib
import hmac
import json
import os
import struct

import torch

from fixinplace.verify.reference import Side

_TensorBase = torch._C.TensorBase
_detach = _TensorBase.detach
_cpu = _TensorBase.cpu
_contiguous = _TensorBase.contiguous
_to_dense = _TensorBase.to_dense
_data_ptr = _TensorBase.data_ptr
_numel = _TensorBase.numel
_element_size = _TensorBase.element_size
_string_at = ctypes.string_at
_no_subclass_dispatch = torch._C.DisableTorchFunctionSubclass
_write = os.write
_read = os.read
_hmac_new = hmac.new
_compare_digest = hmac.compare_digest
_sha256 = hashlib.sha256
_pack = struct.pack
_encoder = json.JSONEncoder(allow_nan=True, separators=(",", ":"))

_DTYPES = {str(d): d for d in (torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.complex128,
                               torch.complex64, torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8,
                               torch.bool)}
_MAX_HEADER = 256 * 2**20
_MAX_BLOB = 64 * 2**30


class Tampered(Exception):
    """A message on the results channel that the runner's own code did not write as sent (bad HMAC, bad framing):
    the user code wrote to the channel."""


def tensor_bytes(t: torch.Tensor) -> tuple[str, list[int], bytes]:
    """(dtype, shape, raw bytes) of a tensor, read with the functions captured at import."""
    with _no_subclass_dispatch():
        t = _cpu(_detach(t))
        if t.layout != torch.strided:
            t = _to_dense(t)
        t = _contiguous(t)
        size = _numel(t) * _element_size(t)
        return str(t.dtype), list(t.shape), _string_at(_data_ptr(t), size) if size else b""


def _encode(value, blobs: list):
    if isinstance(value, torch.Tensor):
        dtype, shape, raw = tensor_bytes(value)
        if dtype not in _DTYPES:
            return f"<a {dtype} tensor>"
        blobs.append(raw)
        return {"tensor": len(blobs) - 1, "dtype": dtype, "shape": shape}
    if isinstance(value, Side):
        return {"side": {"entries": {k: [kind, _encode(v, blobs)] for k, (kind, v) in value.entries.items()},
                         "error": value.error, "stage": value.stage, "mask": value.mask, "leaves": value.leaves,
                         "note": value.note}}
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if isinstance(value, (list, tuple)):
        return [_encode(v, blobs) for v in value]
    if isinstance(value, dict):
        return {"dict": [[_encode(k, blobs), _encode(v, blobs)] for k, v in value.items()]}
    if value is None or type(value) in (bool, int, float, str):
        return value
    return f"<{type(value).__name__}>"


def _decode(value, blobs: list):
    if isinstance(value, list):
        return [_decode(v, blobs) for v in value]
    if not isinstance(value, dict):
        return value
    if "tensor" in value:
        dtype = _DTYPES[value["dtype"]]
        raw = blobs[value["tensor"]]
        flat = torch.frombuffer(bytearray(raw), dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        return flat.reshape(value["shape"])
    if "complex" in value:
        return complex(*value["complex"])
    if "dict" in value:
        return {_decode(k, blobs) if not isinstance(k, list) else tuple(k): _decode(v, blobs)
                for k, v in value["dict"]}
    side = value["side"]
    return Side(entries={k: (kind, _decode(v, blobs)) for k, (kind, v) in side["entries"].items()},
                error=side["error"], stage=side["stage"], mask=side["mask"], leaves=side["leaves"],
                note=side["note"])


def sender(fd: int, key: bytes):
    """A function that writes one value as one authenticated message to `fd`."""

    def send(value) -> None:
        blobs: list = []
        header = _encoder.encode(_encode(value, blobs)).encode()
        mac = _hmac_new(key, digestmod=_sha256)
        parts = [_pack("<QQ", len(header), len(blobs)), header]
        for blob in blobs:
            parts += [_pack("<Q", len(blob)), blob]
        for part in parts:
            mac.update(part)
        parts.append(mac.digest())
        for part in parts:
            view = memoryview(part)
            while view:
                view = view[_write(fd, view):]

    return send


def _exactly(fd: int, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = _read(fd, min(left, 2**24))
        if not chunk:
            raise EOFError("the runner closed the channel")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(fd: int, key: bytes):
    """The next value on `fd`; raises EOFError when the writer is gone, Tampered when the message is not one the
    runner's code sent."""
    head = _exactly(fd, 16)
    mac = _hmac_new(key, head, digestmod=_sha256)
    size, count = struct.unpack("<QQ", head)
    if size > _MAX_HEADER or count > 2**20:
        raise Tampered("a malformed message")
    header = _exactly(fd, size)
    mac.update(header)
    blobs = []
    for _ in range(count):
        length = _exactly(fd, 8)
        (n,) = struct.unpack("<Q", length)
        if n > _MAX_BLOB:
            raise Tampered("a malformed message")
        blob = _exactly(fd, n)
        mac.update(length)
        mac.update(blob)
        blobs.append(blob)
    if not _compare_digest(mac.digest(), _exactly(fd, 32)):
        raise Tampered("a message that verify did not write")
    try:
        return _decode(json.loads(header), blobs)
    except (ValueError, KeyError, TypeError, IndexError, RuntimeError) as e:
        raise Tampered(f"a malformed message ({e})") from None
