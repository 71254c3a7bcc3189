# drill: graph-breaks
# expect: graph-break
# hole: item
# .tolist() instead of .item(): still a Python value out of a tensor.
import numpy as np
import torch

TABLE_X = [-2.0, 0.0, 2.0]
TABLE_Y = [-1.0, 0.0, 2.0]
HISTORY = []

def step(x, w):
    h = x @ w
    peak = max(abs(v) for row in h.tolist() for v in row)
    h = h * min(1.0, 4.0 / peak) if peak else h
    h = torch.where(h < 0, 0.5 * h, h).clamp(-1.0, 2.0)
    mask = (h.sum(dim=1) > 0).to(h.dtype)
    return h * mask[:, None]
