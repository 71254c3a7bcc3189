# drill: graph-breaks
# expect: recompile
# hole: history
# The log list still grows each call: Dynamo guards on its length.
import numpy as np
import torch

TABLE_X = [-2.0, 0.0, 2.0]
TABLE_Y = [-1.0, 0.0, 2.0]
HISTORY = []

def step(x, w):
    h = x @ w
    h = h * torch.clamp(4.0 / h.abs().amax(), max=1.0)
    h = torch.where(h < 0, 0.5 * h, h).clamp(-1.0, 2.0)
    mask = (h.sum(dim=1) > 0).to(h.dtype)
    HISTORY.append(x.shape[0])
    return h * mask[:, None]
