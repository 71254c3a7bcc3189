"""Candidate implicit-GEMM conv2d kernels, each checked against F.conv2d and then timed beside cuDNN in one run
(benchmark, not a test; issue 22's conv2d speed). Used to pick solutions/conv2d.py's structure and configs.

    PYTHONPATH=. python benchmarks/conv_candidates.py [--shape N,C,H,W,K,R,S,stride,padding] [--repeats 3]

Every candidate walks GEMM-K as (r, s) outside and C inside, so with a channels-last x each A tile row is BLOCK_C
contiguous channels. They differ in:
  nested  a Python loop over (r, s) with the channel loop inside (the software pipeliner sees C / BLOCK_C steps)
  flat    one loop over (r, s, c-block) (the pipeliner sees R·S·C / BLOCK_C steps)
  w_rsck  w re-laid out once per call as (R, S, C, K) (B tile rows contiguous along K); w_krsc as (K, R, S, C)
          (contiguous along C); w_raw reads w (K, C, R, S) at its own strides
and the tile (BLOCK_M x BLOCK_N x BLOCK_C), num_warps, num_stages, GROUP_M (grouped program order for L2).
Prints, per candidate, the max relative error against float32 F.conv2d, the median of `--repeats` do_bench medians
(alternating candidates within each round), the spread (max - min) / median, TFLOPS and the ratio to cuDNN.
"""
from __future__ import annotations

import argparse
import signal
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def conv_flat(x_ptr, w_ptr, y_ptr, N, C, H, W, K, P, Q, R, S, stride, padding,
              sxn, sxc, sxh, sxw, swc, swk, swr, sws, syn, syk, syp, syq,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(N * P * Q, BLOCK_M)
    num_n = tl.cdiv(K, BLOCK_N)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_c = tl.arange(0, BLOCK_C)
    m_ok = offs_m < N * P * Q
    n = offs_m // (P * Q)
    pq = offs_m % (P * Q)
    p = pq // Q
    q = pq % Q
    h0 = p * stride - padding
    w0 = q * stride - padding
    x_base = x_ptr + n * sxn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    nc = tl.cdiv(C, BLOCK_C)
    for kk in range(0, R * S * nc):
        rs = kk // nc
        c0 = (kk % nc) * BLOCK_C
        r = rs // S
        s = rs % S
        h = h0 + r
        w = w0 + s
        inside = m_ok & (h >= 0) & (h < H) & (w >= 0) & (w < W)
        c = c0 + offs_c
        a = tl.load((x_base + h * sxh + w * sxw)[:, None] + c[None, :] * sxc,
                    mask=inside[:, None] & (c[None, :] < C), other=0.0)
        b = tl.load(w_ptr + r * swr + s * sws + c[:, None] * swc + offs_k[None, :] * swk,
                    mask=(c[:, None] < C) & (offs_k[None, :] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    y_ptrs = y_ptr + (n * syn + p * syp + q * syq)[:, None] + offs_k[None, :] * syk
    tl.store(y_ptrs, acc.to(tl.float16), mask=m_ok[:, None] & (offs_k[None, :] < K))


@triton.jit
def conv_nested(x_ptr, w_ptr, y_ptr, N, C, H, W, K, P, Q, R, S, stride, padding,
                sxn, sxc, sxh, sxw, swc, swk, swr, sws, syn, syk, syp, syq,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(N * P * Q, BLOCK_M)
    num_n = tl.cdiv(K, BLOCK_N)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_c = tl.arange(0, BLOCK_C)
    m_ok = offs_m < N * P * Q
    n = offs_m // (P * Q)
    pq = offs_m % (P * Q)
    p = pq // Q
    q = pq % Q
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for r in range(0, R):
        h = p * stride - padding + r
        for s in range(0, S):
            w = q * stride - padding + s
            inside = m_ok & (h >= 0) & (h < H) & (w >= 0) & (w < W)
            x_row = x_ptr + n * sxn + h * sxh + w * sxw
            for c0 in range(0, C, BLOCK_C):
                c = c0 + offs_c
                a = tl.load(x_row[:, None] + c[None, :] * sxc, mask=inside[:, None] & (c[None, :] < C), other=0.0)
                b = tl.load(w_ptr + r * swr + s * sws + c[:, None] * swc + offs_k[None, :] * swk,
                            mask=(c[:, None] < C) & (offs_k[None, :] < K), other=0.0)
                acc = tl.dot(a, b, acc)
    y_ptrs = y_ptr + (n * syn + p * syp + q * syq)[:, None] + offs_k[None, :] * syk
    tl.store(y_ptrs, acc.to(tl.float16), mask=m_ok[:, None] & (offs_k[None, :] < K))


def make(kernel, layout, BM, BN, BC, warps, stages, group, convert=False):
    def run(x, w, stride=1, padding=0):
        cl = x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
        if convert and not cl:  # an NCHW x re-laid channels-last once, so each A row is contiguous along C
            x = x.contiguous(memory_format=torch.channels_last)
        N, C, H, W = x.shape
        K, _, R, S = w.shape
        P = (H + 2 * padding - R) // stride + 1
        Q = (W + 2 * padding - S) // stride + 1
        if layout == "rsck":
            wl = w.permute(2, 3, 1, 0).contiguous()          # (R, S, C, K)
            swr, sws, swc, swk = wl.stride()
        elif layout == "krsc":
            wl = w.permute(0, 2, 3, 1).contiguous()          # (K, R, S, C)
            swk, swr, sws, swc = wl.stride()
        else:
            wl = w
            swk, swc, swr, sws = wl.stride()
        y = torch.empty((N, K, P, Q), device=x.device, dtype=torch.float16,
                        memory_format=torch.channels_last if cl else torch.contiguous_format)
        grid = (triton.cdiv(N * P * Q, BM) * triton.cdiv(K, BN),)
        kernel[grid](x, wl, y, N, C, H, W, K, P, Q, R, S, stride, padding, *x.stride(), swc, swk, swr, sws,
                     *y.stride(), BLOCK_M=BM, BLOCK_N=BN, BLOCK_C=BC, GROUP_M=group, num_warps=warps,
                     num_stages=stages)
        return y
    return run


CANDIDATES = {
    # label: (kernel, w layout, BLOCK_M, BLOCK_N, BLOCK_C, num_warps, num_stages, GROUP_M)
    "nested rsck 128x128x64 w8 s3": (conv_nested, "rsck", 128, 128, 64, 8, 3, 8),
    "flat raw 128x128x64 w8 s3": (conv_flat, "raw", 128, 128, 64, 8, 3, 8),
    "flat rsck 128x128x64 w4 s3": (conv_flat, "rsck", 128, 128, 64, 4, 3, 8),
    "flat rsck 128x128x64 w8 s3": (conv_flat, "rsck", 128, 128, 64, 8, 3, 8),
    "flat rsck 128x128x64 w8 s4": (conv_flat, "rsck", 128, 128, 64, 8, 4, 8),
    "flat rsck 128x256x64 w8 s3": (conv_flat, "rsck", 128, 256, 64, 8, 3, 8),
    "flat rsck 128x256x64 w8 s4": (conv_flat, "rsck", 128, 256, 64, 8, 4, 8),
    "flat rsck 256x128x64 w8 s3": (conv_flat, "rsck", 256, 128, 64, 8, 3, 8),
    "flat rsck 128x128x32 w4 s4": (conv_flat, "rsck", 128, 128, 32, 4, 4, 8),
    "flat krsc 128x128x64 w8 s3": (conv_flat, "krsc", 128, 128, 64, 8, 3, 8),
    "flat krsc 128x256x64 w8 s3": (conv_flat, "krsc", 128, 256, 64, 8, 3, 8),
    "flat rsck 128x256x64 w8 s3 g1": (conv_flat, "rsck", 128, 256, 64, 8, 3, 1),
    "flat rsck 128x128x128 w8 s3": (conv_flat, "rsck", 128, 128, 128, 8, 3, 8),
    "flat rsck 256x128x64 w8 s4": (conv_flat, "rsck", 256, 128, 64, 8, 4, 8),
    "flat rsck 64x256x64 w4 s4": (conv_flat, "rsck", 64, 256, 64, 4, 4, 8),
}


def main() -> int:
    import torch.nn.functional as F

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="32,256,56,56,256,3,3,1,1")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated substrings of candidate labels")
    ap.add_argument("--reference", action="store_true", help="also time solutions/conv2d.py")
    ap.add_argument("--nchw", action="store_true",
                    help="x NCHW-contiguous (the grader's make_inputs): cuDNN on it and on a channels-last copy, "
                         "each candidate as is and with x re-laid channels-last inside (+cl)")
    ap.add_argument("--device", default="cuda", help="cpu: a smoke test of this script under TRITON_INTERPRET=1")
    a = ap.parse_args()
    dev = a.device
    if dev == "cuda" and not torch.cuda.is_available():
        print("conv_candidates.py needs a CUDA GPU; nothing measured")
        return 2
    if dev == "cpu":  # no CUDA events: a wall-clock stand-in, so the smoke test runs every line but the GPU's
        import time

        def bench(fn, **_):
            t = time.perf_counter()
            fn()
            return (time.perf_counter() - t) * 1e3
        triton.testing.do_bench = bench
        torch.cuda.synchronize = lambda: None
        torch.cuda.get_device_name = lambda: "cpu (interpreter smoke test)"
    Nb, C, H, W, K, R, S, stride, padding = (int(v) for v in a.shape.split(","))
    g = torch.Generator(device=dev).manual_seed(0)
    x = torch.randn(Nb, C, H, W, generator=g, device=dev, dtype=torch.float16)
    x_cl = x.contiguous(memory_format=torch.channels_last)
    if not a.nchw:
        x = x_cl
    w = torch.randn(K, C, R, S, generator=g, device=dev, dtype=torch.float16) * 0.05
    w_cl = w.contiguous(memory_format=torch.channels_last)
    torch.backends.cudnn.benchmark = True
    kw = {"stride": stride, "padding": padding}
    expected = F.conv2d(x.float(), w.float(), **kw)
    scale = float(expected.abs().amax())
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    flops = 2 * Nb * K * P * Q * C * R * S
    fns = {"cudnn": lambda: F.conv2d(x, w_cl, **kw)}
    if a.nchw:
        fns["cudnn"] = lambda: F.conv2d(x, w, **kw)  # eager PyTorch on the NCHW tensors as given
        fns["cudnn channels-last"] = lambda: F.conv2d(x_cl, w_cl, **kw)
    if a.reference:
        from benchmarks.tensor_cores import load_entry
        ref = load_entry(ROOT / "solutions" / "conv2d.py", "conv2d")
        fns["solutions/conv2d.py"] = lambda: ref(x, w, **kw)
    only = [s for s in a.only.split(",") if s]
    for label, cfg in CANDIDATES.items():
        if only and not any(s in label for s in only):
            continue
        fns[label] = (lambda f=make(*cfg): f(x, w, **kw))
        if a.nchw:
            fns[label + " +cl"] = (lambda f=make(*cfg, convert=True): f(x, w, **kw))
    signal.signal(signal.SIGTERM, _stop)  # `timeout` sends SIGTERM: print what was measured so far
    ok = {}
    try:
        for label, fn in fns.items():
            try:
                out = fn()
                torch.cuda.synchronize()
                err = float((out.float() - expected).abs().amax()) / scale
            except KeyboardInterrupt:
                raise
            except Exception as e:  # a config that does not compile (shared memory) is reported, not fatal
                print(f"  {label:34} FAILED: {type(e).__name__}: {str(e).splitlines()[0][:120]}", flush=True)
                continue
            ok[label] = err
            print(f"  {label:34} max relative error {err:.2e}" + ("" if err <= 2e-2 else "  << WRONG"), flush=True)
    except KeyboardInterrupt:
        print("  (stopped while compiling: timing only the candidates checked so far)", flush=True)
    per = {label: [] for label, err in ok.items() if err <= 2e-2}
    try:
        for _ in range(a.repeats):
            for label in per:
                per[label].append(triton.testing.do_bench(fns[label], warmup=25, rep=100, return_mode="median"))
    except KeyboardInterrupt:
        print("  (stopped early: the table holds the repeats measured so far)", flush=True)
    per = {label: v for label, v in per.items() if v}
    if "cudnn" not in per:
        return 1
    base = statistics.median(per["cudnn"])
    print(f"\n{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}; "
          f"x {(Nb, C, H, W)} {'NCHW' if a.nchw else 'channels-last'} -> {K}, {R}x{S}, stride {stride}, "
          f"padding {padding}; up to {a.repeats} repeats of do_bench(median), candidates alternating")
    print(f"  {'candidate':34} {'median us':>10} {'spread %':>8} {'TFLOPS':>7} {'x cuDNN':>8}  runs")
    for label, v in sorted(per.items(), key=lambda kv: statistics.median(kv[1])):
        med = statistics.median(v)
        spread = (max(v) - min(v)) / med * 100
        print(f"  {label:34} {med * 1e3:10.1f} {spread:8.1f} {flops / (med / 1e3) / 1e12:7.0f} {base / med:8.3f}"
              f"  {len(v)}")
    return 0


def _stop(*_):
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
