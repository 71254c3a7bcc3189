# drill: graph-breaks
# expect: graph-break
# hole: nonzero
# torch.nonzero is still used: its output shape depends on the data.
import numpy as np
import torch

TABLE_X = [-2.0, 0.0, 2.0]
TABLE_Y = [-1.0, 0.0, 2.0]
HISTORY = []

def step(x, w):
    h = x @ w
    h = h * torch.clamp(4.0 / h.abs().amax(), max=1.0)
    h = torch.where(h < 0, 0.5 * h, h).clamp(-1.0, 2.0)
    keep = torch.nonzero(h.sum(dim=1) > 0).squeeze(1)
    mask = torch.zeros(h.shape[0], dtype=h.dtype)
    mask[keep] = 1.0
    return h * mask[:, None]
