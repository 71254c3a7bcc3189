# drill: vector-add
# expect: no-kernel
import torch
import triton
import triton.language as tl


def add(x, y):
    out = torch.empty_like(x)
    return out
