# drill: row-sum
# expect: pass
"""Two passes: partial sums of RBLOCK-wide chunks into a scratch buffer, then one program per row adds them."""
import torch
import triton
import triton.language as tl


@triton.jit
def partial_sums(x_ptr, part_ptr, M, N, CHUNKS, RBLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * RBLOCK + tl.arange(0, RBLOCK)
    vals = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(part_ptr + row * CHUNKS + chunk, tl.sum(vals, axis=0))


@triton.jit
def add_partials(part_ptr, out_ptr, CHUNKS, CBLOCK: tl.constexpr):
    row = tl.program_id(0)
    idx = tl.arange(0, CBLOCK)
    vals = tl.load(part_ptr + row * CHUNKS + idx, mask=idx < CHUNKS, other=0.0)
    tl.store(out_ptr + row, tl.sum(vals, axis=0))


def row_sum(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    RBLOCK = 256
    chunks = triton.cdiv(N, RBLOCK)
    part = torch.empty((M, chunks), device=x.device, dtype=torch.float32)
    out = torch.empty((M,), device=x.device, dtype=torch.float32)
    partial_sums[(M, chunks)](x, part, M, N, chunks, RBLOCK=RBLOCK)
    add_partials[(M,)](part, out, chunks, CBLOCK=triton.next_power_of_2(chunks))
    return out
