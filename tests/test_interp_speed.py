"""grader/watch/interp_speed.py: the interpreter's type caches and its same-shape broadcast change nothing a kernel
computes or a grade reads.

Each side runs in its own process (TRITON_INTERPRET is read when the decorators run, and the caches patch Triton's
classes for the whole process): the same kernels, with and without the caches, must give bit-identical outputs and
the same type names, shapes and numpy dtypes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from grader.run import runner

ROOT = Path(__file__).resolve().parent.parent

KERNELS = r'''
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask) * 2, mask=mask)


@triton.jit
def rows(x_ptr, i_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.program_id(0) * BM + tl.arange(0, BM)
    c = tl.arange(0, BN)
    mask = (r[:, None] < M) & (c[None, :] < N)
    x = tl.load(x_ptr + r[:, None] * stride + c[None, :], mask=mask, other=-float("inf"))
    i = tl.load(i_ptr + c, mask=c < N, other=0)          # int32 row, broadcast against fp16 tile
    y = x - tl.max(x, axis=1)[:, None] + i[None, :]
    e = tl.where(mask, tl.exp(y.to(tl.float32)), 0.0)
    tl.store(out_ptr + r[:, None] * stride + c[None, :], (e / tl.sum(e, axis=1)[:, None]).to(tl.float16), mask=mask)


@triton.jit
def mm(a, b, c, M, N, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # constexpr K: 3.6's
    # interpreter runs range() over a runtime scalar only with grader.watch.interp_compat
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))
'''

SCRIPT = r'''
import hashlib, json, os, sys
os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])
installed = None
if sys.argv[3] == "cached":
    from grader.watch import interp_speed
    installed = {"caches": interp_speed.cache_interpreter_types(), "inits": interp_speed.faster_type_inits(),
                 "broadcast": interp_speed.same_shape_broadcast()}
import torch
import triton.language as tl
from triton.runtime import interpreter
import kernels as K

g = torch.Generator().manual_seed(0)
x, y = torch.randn(1000, generator=g), torch.randn(1000, generator=g)
o = torch.full((1000,), float("nan"))
K.add[(32,)](x, y, o, 1000, BLOCK=32)
s = torch.randn(37, 50, generator=g).half()
i = torch.randint(-3, 3, (50,), generator=g, dtype=torch.int32)
so = torch.zeros(37, 50, dtype=torch.float16)
K.rows[(10,)](s, i, so, 37, 50, 50, BM=4, BN=64)
a, b = torch.randn(40, 24, generator=g).half(), torch.randn(24, 33, generator=g).half()
c = torch.zeros(40, 33, dtype=torch.bfloat16)
K.mm[(3, 3)](a, b, c, 40, 33, 24, BM=16, BN=16, BK=16)
digest = {n: hashlib.sha256(t.view(torch.uint8 if t.dtype != torch.float32 else torch.int32).numpy().tobytes()).hexdigest()
          for n, t in (("add", o), ("rows", so.view(torch.int16)), ("mm", c.view(torch.int16)))}
types = []
for elt in (tl.float32, tl.float16, tl.int1, tl.pointer_type(tl.float32)):
    for shape in ([8], [2, 16], [1, 4, 4]):
        t = tl.block_type(elt, shape)
        w = t.with_element_ty(tl.int32)
        types.append([str(t), t.numel, list(t.shape), str(w), str(interpreter._get_np_dtype(t)),
                      str(interpreter._get_np_dtype(elt))])
print("RESULT " + json.dumps({"installed": installed, "digest": digest, "types": types}))
'''


def _run(tmp_path, mode: str) -> dict:
    (tmp_path / "kernels.py").write_text(KERNELS, encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT), str(tmp_path), mode], capture_output=True,
                         text=True, timeout=300, env=runner.child_env())
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line, out.stdout[-2000:] + out.stderr[-3000:]
    return json.loads(line[len("RESULT "):])


def test_type_caches_give_bit_identical_kernels_and_the_same_types(tmp_path):
    plain, cached = _run(tmp_path, "plain"), _run(tmp_path, "cached")
    import triton

    assert cached["installed"]["caches"] is True
    if triton.__version__.startswith("3.9"):  # the CPU machines' Triton: every one applies
        assert cached["installed"] == {"caches": True, "inits": True, "broadcast": True}
    assert cached["digest"] == plain["digest"]
    assert cached["types"] == plain["types"]
    assert len(plain["types"]) == 12 and [t[1] for t in plain["types"][:3]] == [8, 32, 16]
