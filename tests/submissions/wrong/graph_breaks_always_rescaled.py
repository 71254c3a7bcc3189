# drill: graph-breaks
# expect: wrong-values
# The .item() break is gone, but small activations are now scaled up to 4: min(1, 4 / peak) became 4 / peak.
import numpy as np
import torch

TABLE_X = [-2.0, 0.0, 2.0]
TABLE_Y = [-1.0, 0.0, 2.0]
HISTORY = []

def step(x, w):
    h = x @ w
    h = h / h.abs().amax() * 4.0  # always rescales, also when the peak is under 4
    h = torch.where(h < 0, 0.5 * h, h).clamp(-1.0, 2.0)
    mask = (h.sum(dim=1) > 0).to(h.dtype)
    return h * mask[:, None]
