"""LayerNorm forward + backward candidates for the reference (issue 21), timed side by side on a GPU.

    PYTHONPATH=. python benchmarks/layernorm_candidates.py [--quick] [--out DIR]     # CUDA: the table
    TRITON_INTERPRET=1 PYTHONPATH=. python benchmarks/layernorm_candidates.py --check-cpu  # values only, small

Forwards (y, mean, rstd):
  tutorial  solutions/layernorm.py as of issue 21's first version (Triton tutorial 05: three loops over N);
  rows{R}w{W}  R rows per program, each row whole in registers (BLOCK_N = next_pow2(N)), num_warps W.
Backwards (dx, dW, dB):
  tutorial  one program per row, dW/dB into GROUP_SIZE_M partial rows under a spin lock, a second kernel sums;
  group{P}w{W}s{S}  P programs, each a contiguous group of ceil(M/P) rows: dx per row, dW/dB accumulated in float32
            registers over the group, one partial row per program into a (P, N) float32 buffer (no zeroing, no
            lock), a second kernel sums the P partial rows (BLOCK_N columns per program);
  atomic{P}w{W}  the same groups, the partial row added with tl.atomic_add into one float32 (N,) row (zeroed
            first), then cast by a tiny Triton kernel.
Every candidate's y and gradients are checked against float32 eager before it is timed; a candidate that is wrong
is printed as WRONG and not timed. Times: triton.testing.do_bench medians (L2 cleared before every rep), the
functions alternating for ROUNDS rounds, median of the rounds' medians; eager F.layer_norm and
torch.compile(dynamic=False) in the same run.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# -- forwards ------------------------------------------------------------------------------------------------------
@triton.jit
def _fwd_rows(X, Y, W, B, Mean, Rstd, M, N, stride, eps, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(X + offs, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    xc = tl.where(mask, x - mean[:, None], 0.)
    var = tl.sum(xc * xc, axis=1) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + rows, mean, mask=rmask)
    tl.store(Rstd + rows, rstd, mask=rmask)
    w = tl.load(W + cols, mask=cmask, other=0.).to(tl.float32)
    b = tl.load(B + cols, mask=cmask, other=0.).to(tl.float32)
    y = xc * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(Y + offs, y, mask=mask)


def fwd_rows(rows, warps):
    def fwd(x, w, b, eps):
        M, N = x.shape
        y = torch.empty_like(x)
        mean = torch.empty((M,), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
        _fwd_rows[(triton.cdiv(M, rows),)](x, y, w, b, mean, rstd, M, N, x.stride(0), eps, ROWS=rows,
                                          BLOCK_N=triton.next_power_of_2(N), num_warps=warps)
        return y, mean, rstd
    return fwd


# -- backwards -----------------------------------------------------------------------------------------------------
@triton.jit
def _bwd_group(DX, DY, X, W, Mean, Rstd, PDW, PDB, M, N, stride, rows_per_program,
               BLOCK_N: tl.constexpr, STAGES: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    dw = tl.zeros([BLOCK_N], dtype=tl.float32)
    db = tl.zeros([BLOCK_N], dtype=tl.float32)
    first = pid * rows_per_program
    last = tl.minimum(first + rows_per_program, M)
    for row in tl.range(first, last, num_stages=STAGES):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = tl.where(mask, (x - mean) * rstd, 0.)
        wdy = w * dy
        c1 = tl.sum(xhat * wdy, axis=0) / N
        c2 = tl.sum(wdy, axis=0) / N
        dx = (wdy - (xhat * c1 + c2)) * rstd
        tl.store(DX + row * stride + cols, dx, mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(PDW + pid * N + cols, dw, mask=mask)
    tl.store(PDB + pid * N + cols, db, mask=mask)


@triton.jit
def _bwd_group_atomic(DX, DY, X, W, Mean, Rstd, ADW, ADB, M, N, stride, rows_per_program,
                      BLOCK_N: tl.constexpr, STAGES: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    dw = tl.zeros([BLOCK_N], dtype=tl.float32)
    db = tl.zeros([BLOCK_N], dtype=tl.float32)
    first = pid * rows_per_program
    last = tl.minimum(first + rows_per_program, M)
    for row in tl.range(first, last, num_stages=STAGES):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = tl.where(mask, (x - mean) * rstd, 0.)
        wdy = w * dy
        c1 = tl.sum(xhat * wdy, axis=0) / N
        c2 = tl.sum(wdy, axis=0) / N
        dx = (wdy - (xhat * c1 + c2)) * rstd
        tl.store(DX + row * stride + cols, dx, mask=mask)
        dw += dy * xhat
        db += dy
    tl.atomic_add(ADW + cols, dw, mask=mask)
    tl.atomic_add(ADB + cols, db, mask=mask)


@triton.jit
def _sum_partials(PDW, PDB, DW, DB, P, N, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros((BLOCK_P, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_P, BLOCK_N), dtype=tl.float32)
    for i in range(0, P, BLOCK_P):
        rows = i + tl.arange(0, BLOCK_P)
        mask = (rows[:, None] < P) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(PDW + offs, mask=mask, other=0.)
        db += tl.load(PDB + offs, mask=mask, other=0.)
    tl.store(DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(DB + cols, tl.sum(db, axis=0), mask=cols < N)


@triton.jit
def _cast2(A, B, OA, OB, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    tl.store(OA + cols, tl.load(A + cols, mask=mask), mask=mask)
    tl.store(OB + cols, tl.load(B + cols, mask=mask), mask=mask)


def programs_for(x, per_sm):
    if x.device.type == "cuda":
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    else:
        sms = 4
    return max(1, min(x.shape[0], sms * per_sm))


def bwd_group(per_sm, warps, stages=1, sum_block_n=64, sum_block_p=32, sum_warps=4):
    def bwd(dy, x, w, mean, rstd):
        M, N = x.shape
        P = programs_for(x, per_sm)
        rpp = triton.cdiv(M, P)
        P = triton.cdiv(M, rpp)
        dx = torch.empty_like(x)
        pdw = torch.empty((P, N), dtype=torch.float32, device=x.device)
        pdb = torch.empty((P, N), dtype=torch.float32, device=x.device)
        _bwd_group[(P,)](dx, dy, x, w, mean, rstd, pdw, pdb, M, N, x.stride(0), rpp,
                         BLOCK_N=triton.next_power_of_2(N), STAGES=stages, num_warps=warps)
        dw = torch.empty_like(w)
        db = torch.empty_like(w)
        _sum_partials[(triton.cdiv(N, sum_block_n),)](pdw, pdb, dw, db, P, N, BLOCK_P=sum_block_p,
                                                      BLOCK_N=sum_block_n, num_warps=sum_warps)
        return dx, dw, db
    return bwd


def bwd_atomic(per_sm, warps, stages=1):
    def bwd(dy, x, w, mean, rstd):
        M, N = x.shape
        P = programs_for(x, per_sm)
        rpp = triton.cdiv(M, P)
        P = triton.cdiv(M, rpp)
        dx = torch.empty_like(x)
        acc = torch.zeros((2, N), dtype=torch.float32, device=x.device)
        _bwd_group_atomic[(P,)](dx, dy, x, w, mean, rstd, acc[0], acc[1], M, N, x.stride(0), rpp,
                                BLOCK_N=triton.next_power_of_2(N), STAGES=stages, num_warps=warps)
        dw = torch.empty_like(w)
        db = torch.empty_like(w)
        _cast2[(triton.cdiv(N, 1024),)](acc[0], acc[1], dw, db, N, BLOCK=1024)
        return dx, dw, db
    return bwd


# -- the tutorial version (solutions/layernorm.py before issue 21's speed work), split into fwd / bwd ---------------
def _load(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _tutorial():
    return _load(ROOT / "benchmarks" / "known_slow" / "layernorm_tutorial_locks.py")


def fwd_tutorial_of(mod):
    def fwd(x, w, b, eps):
        M, N = x.shape
        y = torch.empty_like(x)
        mean = torch.empty((M,), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
        block = min(65536 // x.element_size(), triton.next_power_of_2(N))
        warps = min(max(block // 256, 1), 8)
        mod._layer_norm_fwd_fused[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, eps, BLOCK_SIZE=block,
                                        num_warps=warps)
        return y, mean, rstd
    return fwd


def bwd_tutorial_of(mod):
    def bwd(dy, x, w, m, v):
        M, N = x.shape
        g = 64
        if N <= 8192:
            g = 96
        if N <= 4096:
            g = 128
        if N <= 1024:
            g = 256
        locks = torch.zeros(2 * g, dtype=torch.int32, device=w.device)
        _dw = torch.zeros((g, N), dtype=x.dtype, device=w.device)
        _db = torch.zeros((g, N), dtype=x.dtype, device=w.device)
        dw = torch.empty((N,), dtype=w.dtype, device=w.device)
        db = torch.empty((N,), dtype=w.dtype, device=w.device)
        dx = torch.empty_like(dy)
        block = min(65536 // x.element_size(), triton.next_power_of_2(N))
        warps = min(max(block // 256, 1), 8)
        mod._layer_norm_bwd_dx_fused[(M,)](dx, dy, _dw, _db, x, w, m, v, locks, x.stride(0), N, GROUP_SIZE_M=g,
                                           BLOCK_SIZE_N=block, num_warps=warps)
        mod._layer_norm_bwd_dwdb[(triton.cdiv(N, 128),)](_dw, _db, dw, db, min(g, M), N, BLOCK_SIZE_M=32,
                                                         BLOCK_SIZE_N=128)
        return dx, dw, db
    return bwd


def autograd_of(fwd, bwd):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b, eps):
            y, mean, rstd = fwd(x, w, b, eps)
            ctx.save_for_backward(x, w, mean, rstd)
            return y

        @staticmethod
        def backward(ctx, dy):
            x, w, mean, rstd = ctx.saved_tensors
            dx, dw, db = bwd(dy.contiguous(), x, w, mean, rstd)
            return dx, dw, db, None

    return lambda x, w, b, eps=1e-5: F.apply(x, w, b, eps)


# -- checking and timing -------------------------------------------------------------------------------------------
def inputs(shape, device, dtype, seed=0):
    m, n = shape
    g = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(shape, device=device, generator=g).to(dtype)
    w = (torch.rand(n, device=device, generator=g) + 0.5).to(dtype)
    b = torch.randn(n, device=device, generator=g).to(dtype)
    dy = torch.randn(shape, device=device, generator=g).to(dtype)
    return x, w, b, dy


def check(fn, x, w, b, dy) -> float:
    """Largest error of y, dx, dW, dB relative to float64 autograd's largest magnitude of each."""
    import torch.nn.functional as F

    def run(f, *args, dt=None):
        leaves = [t.detach().clone().to(dt or t.dtype).requires_grad_() for t in args]
        y = f(*leaves, 1e-5)
        y.backward(dy.to(y.dtype))
        return [y.detach()] + [t.grad for t in leaves]

    got = run(fn, x, w, b)
    want = run(lambda x, w, b, eps: F.layer_norm(x, (x.shape[-1],), w, b, eps), x, w, b, dt=torch.float64)
    return max(float((g.double() - r).abs().max() / r.abs().max().clamp_min(1.0)) for g, r in zip(got, want))


def candidates(quick: bool):
    tut = _tutorial()
    fwds = {"tutorial": fwd_tutorial_of(tut)}
    for r, w in ((1, 4), (1, 8), (1, 16), (2, 8), (2, 16)):
        if quick and (r, w) not in ((1, 8), (1, 16)):
            continue
        fwds[f"rows{r}w{w}"] = fwd_rows(r, w)
    bwds = {"tutorial": bwd_tutorial_of(tut)}
    grid = [(p, w, s) for p in (1, 2) for w in (8, 16) for s in (1, 3, 4)]
    if quick:
        grid = [(1, 8, 3), (1, 16, 4), (2, 8, 3)]
    for p, w, s in grid:
        bwds[f"group{p}w{w}s{s}"] = bwd_group(p, w, s)
    for sb, sp, sw in ((32, 32, 4), (128, 32, 4), (64, 64, 8), (64, 16, 2)):
        bwds[f"group1w8s3_sum{sb}x{sp}w{sw}"] = bwd_group(1, 8, 3, sum_block_n=sb, sum_block_p=sp, sum_warps=sw)
    bwds["atomic1w8s3"] = bwd_atomic(1, 8, 3)
    bwds["atomic2w8s3"] = bwd_atomic(2, 8, 3)
    return fwds, bwds


def check_cpu() -> int:
    fwds, bwds = candidates(quick=False)
    worst = 0.0
    for shape in ((1, 1), (5, 17), (9, 781), (3, 1000)):
        x, w, b, dy = inputs(shape, "cpu", torch.float32)
        for fk in ("tutorial", "rows1w8", "rows2w8"):
            for bk in ("tutorial", "group2w8s1", "group1w8s3", "atomic2w8s3", "group1w8s3_sum32x32w4"):
                err = check(autograd_of(fwds[fk], bwds[bk]), x, w, b, dy)
                worst = max(worst, err)
                print(f"{shape} fwd {fk:9s} bwd {bk:18s} err {err:.1e}", flush=True)
    print(f"worst {worst:.1e}")
    return 0 if worst < 1e-5 else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check-cpu", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    if a.check_cpu:
        return check_cpu()
    if not torch.cuda.is_available():
        print("needs CUDA (or --check-cpu under TRITON_INTERPRET=1)")
        return 2
    import torch.nn.functional as F
    from triton.testing import do_bench
    from benchmarks.training import layernorm_bytes

    print(torch.cuda.get_device_name(), "torch", torch.__version__, "triton", triton.__version__, flush=True)
    shape = (4096, 8192)
    x, w, b, dy = inputs(shape, "cuda", torch.float16)
    floor = layernorm_bytes(shape, 2)
    fwds, bwds = candidates(a.quick)

    def bench(fn):
        return 1000.0 * do_bench(fn, warmup=10, rep=40)

    def alternate(fns: dict, rounds: int) -> dict:
        seen = {k: [] for k in fns}
        for _ in range(rounds):
            for k, f in fns.items():
                seen[k].append(bench(f))
        return {k: (statistics.median(v), min(v), max(v)) for k, v in seen.items()}

    # forwards alone
    ok_f = {}
    for k, f in fwds.items():
        y, m, r = f(x, w, b, 1e-5)
        ref = F.layer_norm(x.float(), (shape[1],), w.float(), b.float(), 1e-5)
        err = float((y.float() - ref).abs().max())
        if err > 2e-2:
            print(f"fwd {k}: WRONG (max err {err:.2e})")
            continue
        ok_f[k] = lambda f=f: f(x, w, b, 1e-5)
    eager_f = lambda: F.layer_norm(x, (shape[1],), w, b, 1e-5)  # noqa: E731
    tf = alternate({**ok_f, "eager fwd": eager_f}, a.rounds)
    fwd_bytes = 2 * shape[0] * shape[1] * 2
    print("\nforward alone (x read, y written: floor %.1f µs at 4.8 TB/s)" % (fwd_bytes / 4.8e6))
    for k, (med, lo, hi) in sorted(tf.items(), key=lambda kv: kv[1][0]):
        print(f"  {k:28s} {med:7.1f} µs  ({lo:.1f}..{hi:.1f})  {fwd_bytes / med / 1e3:7.0f} GB/s", flush=True)

    # backwards alone, on the same saved stats
    y, m, r = fwds["rows1w8"](x, w, b, 1e-5)
    ok_b = {}
    for k, f in bwds.items():
        def full(x_, w_, b_, eps, f=f):
            return autograd_of(fwds["rows1w8"], f)(x_, w_, b_, eps)
        try:
            err = check(full, x, w, b, dy)
        except Exception as e:  # a candidate that does not compile is reported, not fatal
            print(f"bwd {k}: ERROR {type(e).__name__}: {str(e)[:200]}")
            continue
        if err > 5e-3:
            print(f"bwd {k}: WRONG (rel err {err:.2e})")
            continue
        ok_b[k] = lambda f=f: f(dy, x, w, m, r)
    tb = alternate(ok_b, a.rounds)
    bwd_bytes = 3 * shape[0] * shape[1] * 2
    print("\nbackward alone (x, dy read, dx written: floor %.1f µs)" % (bwd_bytes / 4.8e6))
    for k, (med, lo, hi) in sorted(tb.items(), key=lambda kv: kv[1][0]):
        print(f"  {k:28s} {med:7.1f} µs  ({lo:.1f}..{hi:.1f})  {bwd_bytes / med / 1e3:7.0f} GB/s", flush=True)

    # whole steps: the best forwards x the best backwards, beside eager and torch.compile
    best_f = [k for k, _ in sorted(tf.items(), key=lambda kv: kv[1][0]) if k != "eager fwd"][:2]
    best_b = [k for k, _ in sorted(tb.items(), key=lambda kv: kv[1][0])][:3]

    def eager(x, w, b, eps):
        return F.layer_norm(x, (x.shape[-1],), w, b, eps)

    full = {f"{fk} + {bk}": autograd_of(fwds[fk], bwds[bk]) for fk in best_f for bk in best_b}
    full["tutorial + tutorial"] = autograd_of(fwds["tutorial"], bwds["tutorial"])
    full["solutions/layernorm.py"] = _load(ROOT / "solutions" / "layernorm.py").layernorm
    full["eager F.layer_norm"] = eager
    full["torch.compile(dynamic=False)"] = torch.compile(eager, dynamic=False)
    xs, ws, bs = (t.detach().clone().requires_grad_() for t in (x, w, b))

    def step_of(fn):
        def step():
            xs.grad = ws.grad = bs.grad = None
            fn(xs, ws, bs, 1e-5).backward(dy)
        return step
    errs = {k: check(f, x, w, b, dy) for k, f in full.items()}
    steps = {k: step_of(f) for k, f in full.items()}
    for s in steps.values():
        s()
    from grader.speed.timing import bench_graphed_ms
    rounds = max(a.rounds, 5)
    tfull = alternate(steps, rounds)
    graphed = {k: [] for k in steps}
    for _ in range(rounds):
        for k, s in steps.items():
            try:
                graphed[k].append(1000.0 * bench_graphed_ms(s))
            except Exception as e:  # not capturable: reported, not fatal
                print(f"  {k}: no CUDA graph ({type(e).__name__}: {str(e)[:120]})")
    tg = {k: (statistics.median(v), min(v), max(v)) for k, v in graphed.items() if v}
    rows = []
    for title, table in (("do_bench of the whole step (host included)", tfull),
                         ("CUDA-graph replay of the whole step (device time)", tg)):
        if "eager F.layer_norm" not in table or "torch.compile(dynamic=False)" not in table:
            continue
        eager_us = table["eager F.layer_norm"][0]
        comp_us = table["torch.compile(dynamic=False)"][0]
        print(f"\nforward + backward, {title}; bytes floor {floor / 1e6:.1f} MB = {floor / 4.8e6:.1f} µs at 4.8 TB/s")
        for k, (med, lo, hi) in sorted(table.items(), key=lambda kv: kv[1][0]):
            row = {"timing": title, "name": k, "us": med, "lo": lo, "hi": hi, "gbs": floor / med / 1e3,
                   "vs_eager": eager_us / med, "vs_compile": comp_us / med, "err": errs[k]}
            rows.append(row)
            print(f"  {k:40s} {med:7.1f} µs ({lo:.1f}..{hi:.1f}) {row['gbs']:6.0f} GB/s ({row['gbs'] / 48:.0f} % "
                  f"of 4.8 TB/s)  {row['vs_eager']:.2f}x eager  {row['vs_compile']:.2f}x compile  err {errs[k]:.1e}",
                  flush=True)
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        Path(a.out, "layernorm_candidates.json").write_text(json.dumps(
            {"fwd": tf, "bwd": tb, "full": rows, "device": torch.cuda.get_device_name(),
             "torch": torch.__version__, "triton": triton.__version__}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
