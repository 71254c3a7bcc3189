# drill: graph-breaks
# expect: graph-break
# hole: item
# The peak is still a Python float from .item() feeding an if.
import numpy as np
import torch

TABLE_X = [-2.0, 0.0, 2.0]
TABLE_Y = [-1.0, 0.0, 2.0]
HISTORY = []

def step(x, w):
    h = x @ w
    peak = h.abs().max().item()
    if peak > 4.0:
        h = h * (4.0 / peak)
    h = torch.where(h < 0, 0.5 * h, h).clamp(-1.0, 2.0)
    mask = (h.sum(dim=1) > 0).to(h.dtype)
    return h * mask[:, None]
