"""Which tiles and warps make the reference `attention` fast on this GPU? (benchmark, not a test; needs CUDA)

    PYTHONPATH=. python benchmarks/attention_configs.py --out DIR

Times the reference kernel (solutions/attention.py) at the speed-gate shape (4, 16, 4096, 64), non-causal and
causal, over a few BLOCK_M x BLOCK_N x num_warps x num_stages, in two forms: K read transposed through its strides
as a (D, BLOCK_N) tile (the solution's), and K read as a (BLOCK_N, D) tile then tl.trans (the "trans" variant,
made from the solution's source); beside F.scaled_dot_product_attention. Prints TFLOPS (4 B H S^2 D, half that
causal) and writes DIR/attention_configs.json. The chosen form and config go into the solution.
"""
from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    import torch
    import torch.nn.functional as F
    import triton
    from triton.testing import do_bench

    spec = importlib.util.spec_from_file_location("ref", ROOT / "solutions" / "attention.py")
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    source = (ROOT / "solutions" / "attention.py").read_text()
    k_as_rows = source.replace(
        "k = tl.load(k_base + cols[None, :] * stride_ks + offs_d[:, None] * stride_kd, mask=cols[None, :] < S,",
        "k = tl.load(k_base + cols[:, None] * stride_ks + offs_d[None, :] * stride_kd, mask=cols[:, None] < S,"
    ).replace("s = tl.dot(q, k) * qk_scale", "s = tl.dot(q, tl.trans(k)) * qk_scale")
    assert k_as_rows != source
    variant = ROOT / "benchmarks" / "_attention_trans.py"
    variant.write_text(k_as_rows)
    spec_t = importlib.util.spec_from_file_location("ref_trans", variant)
    ref_t = importlib.util.module_from_spec(spec_t)
    spec_t.loader.exec_module(ref_t)
    variant.unlink()
    forms = {"strides": ref, "trans": ref_t}
    configs = [(128, 64, 4, 3), (128, 64, 8, 3), (128, 64, 4, 4), (128, 128, 8, 3), (128, 128, 8, 2),
               (64, 64, 4, 3), (128, 32, 4, 4), (64, 128, 4, 3)]
    B, H, S, D = 4, 16, 4096, 64
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
    rows = []
    for causal in (False, True):
        flops = 4 * B * H * S * S * D * (0.5 if causal else 1.0)
        sdpa = do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), return_mode="median")
        print(f"causal={causal}: SDPA {sdpa * 1e3:.1f} us, {flops / sdpa / 1e9:.0f} TFLOPS", flush=True)
        expected = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        for (form, mod), (bm, bn, warps, stages) in itertools.product(forms.items(), configs):
            o = torch.empty_like(q)
            grid = (triton.cdiv(S, bm), B * H)

            def run():
                mod.attention_kernel[grid](q, k, v, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(), H, S,
                                           (1.0 / math.sqrt(D)) * 1.4426950408889634, D=D, BLOCK_M=bm, BLOCK_N=bn,
                                           CAUSAL=causal, num_warps=warps, num_stages=stages)
            try:
                run()
                err = float((o.float() - expected.float()).abs().max())
                ms = do_bench(run, return_mode="median")
            except Exception as e:  # noqa: BLE001 - out of shared memory for big tiles x stages
                rows.append({"form": form, "causal": causal, "BLOCK_M": bm, "BLOCK_N": bn, "num_warps": warps,
                             "num_stages": stages, "error": f"{type(e).__name__}: {str(e)[:120]}"})
                continue
            row = {"form": form, "causal": causal, "BLOCK_M": bm, "BLOCK_N": bn, "num_warps": warps, "num_stages": stages,
                   "us": ms * 1e3, "tflops": flops / ms / 1e9, "pct_sdpa": 100 * sdpa / ms, "max_err": err}
            rows.append(row)
        best = sorted((r for r in rows if r["causal"] == causal and "us" in r), key=lambda r: r["us"])[:6]
        for r in best:
            print(f"  {r['form']:7} {r['BLOCK_M']}x{r['BLOCK_N']} w{r['num_warps']} s{r['num_stages']}: {r['us']:.1f} us, "
                  f"{r['tflops']:.0f} TFLOPS, {r['pct_sdpa']:.0f} % of SDPA, err {r['max_err']:.1e}", flush=True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "attention_configs.json").write_text(json.dumps({"device": torch.cuda.get_device_name(),
                                                            "torch": torch.__version__, "triton": triton.__version__,
                                                            "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
