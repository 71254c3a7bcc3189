# drill: graph-breaks
# expect: graph-break
# hole: print
# The log line is still there: Dynamo cannot trace print.
import numpy as np
import torch

TABLE_X = [-2.0, 0.0, 2.0]
TABLE_Y = [-1.0, 0.0, 2.0]
HISTORY = []

def step(x, w):
    print(f"step: batch {x.shape[0]}")
    h = x @ w
    h = h * torch.clamp(4.0 / h.abs().amax(), max=1.0)
    h = torch.where(h < 0, 0.5 * h, h).clamp(-1.0, 2.0)
    mask = (h.sum(dim=1) > 0).to(h.dtype)
    return h * mask[:, None]
