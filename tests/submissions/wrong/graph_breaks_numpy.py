# drill: graph-breaks
# expect: graph-break
# hole: numpy
# np.interp is still called: Dynamo has no torch version of it.
import numpy as np
import torch

TABLE_X = [-2.0, 0.0, 2.0]
TABLE_Y = [-1.0, 0.0, 2.0]
HISTORY = []

def step(x, w):
    h = x @ w
    h = h * torch.clamp(4.0 / h.abs().amax(), max=1.0)
    h = torch.from_numpy(np.interp(h.detach().numpy(), TABLE_X, TABLE_Y)).to(h.dtype)
    mask = (h.sum(dim=1) > 0).to(h.dtype)
    return h * mask[:, None]
