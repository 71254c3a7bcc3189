# drill: graph-breaks
# expect: recompile
# hole: branch
# The aligned-batch "fast path" is kept: Dynamo guards on B % 8 and recompiles when it changes.
import numpy as np
import torch

TABLE_X = [-2.0, 0.0, 2.0]
TABLE_Y = [-1.0, 0.0, 2.0]
HISTORY = []

def step(x, w):
    if x.shape[0] % 8 == 0:
        h = (x.view(-1, 8, x.shape[1]) @ w).reshape(x.shape[0], w.shape[1])
    else:
        h = x @ w
    h = h * torch.clamp(4.0 / h.abs().amax(), max=1.0)
    h = torch.where(h < 0, 0.5 * h, h).clamp(-1.0, 2.0)
    mask = (h.sum(dim=1) > 0).to(h.dtype)
    return h * mask[:, None]
