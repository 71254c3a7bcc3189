"""libdevice under the interpreter: numpy versions agree with torch; unsupported ones stop with a clear message.

Runs in a subprocess (TRITON_INTERPRET must be set before triton is imported). Works with Triton 3.6 and 3.9:
`/tmp/venv36/bin/python -m pytest tests/test_libdevice.py`.
"""
import functools
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r'''
import json, os, sys
os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, sys.argv[1])
from grader.watch.interp_compat import install as compat
from grader.watch.libdevice_cpu import install
compat(); install()
import torch, triton, triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.cuda import libdevice as cuda_libdevice

@triton.jit
def unary(x_ptr, o_ptr, n, WHICH: tl.constexpr, B: tl.constexpr):
    offs = tl.arange(0, B)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if WHICH == 0:
        y = libdevice.exp(x)
    elif WHICH == 1:
        y = libdevice.tanh(x)
    elif WHICH == 2:
        y = cuda_libdevice.erf(x)
    elif WHICH == 3:
        y = libdevice.rsqrt(x * x + 1.0)
    elif WHICH == 4:
        y = libdevice.pow(x * x, 0.5)
    elif WHICH == 5:
        y = libdevice.exp2(x) + libdevice.log(x * x + 1.0)
    else:
        y = libdevice.fma(x, x, x)
    tl.store(o_ptr + offs, y, mask=m)

@triton.jit
def bessel(x_ptr, o_ptr, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(o_ptr + offs, libdevice.j0(tl.load(x_ptr + offs)))

refs = [torch.exp, torch.tanh, torch.erf, lambda x: (x * x + 1).rsqrt(), lambda x: (x * x).pow(0.5),
        lambda x: torch.exp2(x) + torch.log(x * x + 1), lambda x: x * x + x]
x = torch.randn(100, generator=torch.Generator().manual_seed(0))
errs = []
for i, ref in enumerate(refs):
    o = torch.empty(100)
    unary[(1,)](x, o, 100, WHICH=i, B=128)
    errs.append(float(((o.double() - ref(x.double())).abs() / (1 + ref(x.double()).abs())).max()))
xb = x.to(torch.bfloat16); ob = torch.empty(100, dtype=torch.bfloat16)
unary[(1,)](xb, ob, 100, WHICH=0, B=128)
bf16_err = float(((ob.double() - xb.double().exp()).abs() / xb.double().exp()).max())
try:
    bessel[(1,)](torch.randn(16), torch.empty(16), B=16)
    unsupported = None
except Exception as e:
    root = e.__cause__ or e
    unsupported = [type(root).__name__, str(root)]
print(json.dumps({"errs": errs, "bf16": bf16_err, "unsupported": unsupported, "triton": triton.__version__}))
'''


@functools.lru_cache(maxsize=1)
def run():
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_libdevice_functions_run_under_the_interpreter():
    out = run()
    assert max(out["errs"]) < 1e-6, out
    assert out["bf16"] < 2 ** -7, out  # bfloat16 rounding of the result, no more


def test_unsupported_libdevice_names_the_portable_alternative():
    out = run()
    name, message = out["unsupported"]
    assert name == "LibdeviceUnsupported"
    assert "libdevice.j0" in message and "tl.exp" in message and "interpreter" in message
