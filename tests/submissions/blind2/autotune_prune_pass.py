# drill: autotune
# expect: pass
# style: autotune with prune_configs_by={'early_config_prune': ...} dropping configs whose block is far larger than the problem (matmul-tutorial style pruning)
# why: three configs differing in BLOCK_SIZE and num_warps, key=['n_elements'], meta grid; pruning keeps at least one config, and every config is a correct masked add.
import torch
import triton
import triton.language as tl


def _prune(configs, named_args, **kwargs):
    n = named_args["n_elements"]
    kept = [c for c in configs if c.kwargs["BLOCK_SIZE"] <= max(256, triton.next_power_of_2(n))]
    return kept or configs[:1]


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 256}, num_warps=2),
        triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 4096}, num_warps=8),
    ],
    key=["n_elements"],
    prune_configs_by={"early_config_prune": _prune},
)
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n_elements
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    out = torch.empty_like(x)
    n_elements = out.numel()
    add_kernel[lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)](x, y, out, n_elements)
    return out
