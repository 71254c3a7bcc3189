"""Facts the oral checkpoints quote, checked on the machine it runs on (issue 19): the installed torch / triton
sources behind the audit's corrections and the new checkpoints, and, on CUDA, registers and spills of a one-row
softmax as num_warps grows (xblock-warps-grid: more warps for the same block mean fewer registers per thread).

    PYTHONPATH=. python benchmarks/oral_facts.py [--out FILE]     # prints JSON; CPU: the source checks only

Each source check names the file, the line and the text found, so docs/oral.md can cite the version that ran."""
from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl


def find(module_file: str, pattern: str) -> dict:
    """The first line of MODULE_FILE (a path under site-packages) matching PATTERN: {file, line, text} or missing."""
    root = Path(torch.__file__).parent.parent
    path = root / module_file
    if not path.exists():
        return {"file": module_file, "missing": "file"}
    rx = re.compile(pattern)
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if rx.search(line):
            return {"file": module_file, "line": i, "text": line.strip()[:160]}
    return {"file": module_file, "missing": pattern}


SOURCES = {
    # the six corrections
    "pointwise_two_configs": ("torch/_inductor/runtime/triton_heuristics.py", r"bs // 2, num_elements_per_warp=64"),
    "reduction_max_warps": ("torch/_inductor/runtime/triton_heuristics.py", r"max_num_warps = 16 if r <= 8192 else 32"),
    "looped_r0_block_cap": ("torch/_inductor/runtime/triton_heuristics.py", r"MAX_R0_BLOCK = 1024 if .*else 2048"),
    "grid_from_globals": ("torch/_inductor/runtime/triton_heuristics.py", r"grid_cls = globals\(\)\["),
    "grid_2d_yz_overflow": ("torch/_inductor/runtime/triton_heuristics.py", r"^class Grid2DWithYZOverflow"),
    "store_output_rounds": ("torch/_inductor/select_algorithm.py", r"if acc_dtype != output_dtype and has_epilogue_fusion"),
    "range_num_stages_doc": ("triton/language/core.py", r"kernel argument only pipelines loads that feed"),
    # new checkpoints
    "make_tensor_descriptor": ("triton/language/core.py", r"^def make_tensor_descriptor"),
    "set_allocator_doc": ("triton/language/core.py", r"triton\.set_allocator\(alloc_fn\)"),
    "range_warp_specialize": ("triton/language/core.py", r":param warp_specialize:"),
    "persistent_grid": ("torch/_inductor/kernel/mm_common.py", r"min\(meta\[\"NUM_SMS\"\]"),
    "persistent_tma_template": ("torch/_inductor/kernel/mm.py", r"name=\"mm_persistent_tma\""),
    "persistent_tma_flag": ("torch/_inductor/config.py", r"enable_persistent_tma_matmul = \("),
    "atomic_default_sem": ("triton/language/core.py", r"defaults to using \"acq_rel\" semantics"),
    "atomic_default_scope": ("triton/language/core.py", r"The default value is \"gpu\""),
    "emulate_precision_casts": ("torch/_inductor/config.py", r"^emulate_precision_casts"),
    "fp_fusion_off_when_emulating": ("torch/_inductor/codegen/triton.py", r"\"enable_fp_fusion\": not config.emulate_precision_casts"),
    "triton_fp_fusion_default": ("triton/knobs.py", r"default_fp_fusion"),
    "template_allow_tf32": ("torch/_inductor/template_heuristics/triton.py", r"allow_tf32 = "),
    "assert_close_fp16": ("torch/testing/_comparison.py", r"torch\.float16: \("),
    "choices_handler_doc": ("torch/_inductor/choices.py", r"V\.set_choices_handler\("),
    "triton_kernel_kwargs": ("torch/_inductor/choices.py", r"def triton_kernel_kwargs"),
    "choices_class_config": ("torch/_inductor/config.py", r"^inductor_choices_class"),
    "custom_pass_param": ("torch/_inductor/codegen/common.py", r"device_custom_pass: "),
    "custom_config_param": ("torch/_inductor/codegen/common.py", r"device_custom_config: "),
    "custom_pass_applied": ("torch/_inductor/fx_passes/post_grad.py", r"for device, custom_backend_pass in custom_backend_passes"),
}


def source_facts() -> dict:
    return {k: find(f, p) for k, (f, p) in SOURCES.items()}


def api_facts() -> dict:
    out = {}
    for name in ("tl.make_tensor_descriptor", "triton.set_allocator", "tl.range", "tl.atomic_add", "tl.atomic_cas"):
        obj = eval(name)
        try:
            out[name] = str(inspect.signature(obj if not isinstance(obj, type) else obj.__init__))
        except (TypeError, ValueError):
            out[name] = "present"
    from torch._inductor import config
    from torch._inductor.codegen.common import register_backend_for_device
    out["register_backend_for_device"] = str(inspect.signature(register_backend_for_device))
    out["enable_persistent_tma_matmul"] = config.triton.enable_persistent_tma_matmul
    out["emulate_precision_casts"] = config.emulate_precision_casts
    out["float32_matmul_precision"] = torch.get_float32_matmul_precision()
    return out


@triton.jit
def _row_softmax(x_ptr, y_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + offs)
    x = x - tl.max(x, 0)
    e = tl.exp(x)
    tl.store(y_ptr + row * N + offs, e / tl.sum(e, 0))


def spills(n: int = 16384) -> list:
    """Registers and spills of a one-program-per-row softmax over N float32 elements, for 1 to 8 warps."""
    x = torch.randn(4, n, device="cuda")
    y = torch.empty_like(x)
    rows = []
    for w in (1, 2, 4, 8):
        k = _row_softmax[(4,)](x, y, N=n, num_warps=w)
        torch.cuda.synchronize()
        ok = torch.allclose(y, torch.softmax(x, 1), atol=1e-6)
        rows.append({"num_warps": w, "elements_per_thread": n // (32 * w), "n_regs": k.n_regs,
                     "n_spills": k.n_spills, "correct": ok})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    a = ap.parse_args()
    facts = {"torch": torch.__version__, "triton": triton.__version__, "sources": source_facts(), "apis": api_facts()}
    if torch.cuda.is_available():
        facts["device"] = torch.cuda.get_device_name()
        facts["row_softmax_16384"] = spills()
    text = json.dumps(facts, indent=1)
    if a.out:
        Path(a.out).write_text(text + "\n")
    print(text)
    missing = [k for k, v in facts["sources"].items() if "missing" in v]
    print("missing:", missing, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
