# drill: graph-breaks
import numpy as np
import torch


TABLE_X = [-2.0, 0.0, 2.0]  # a piecewise-linear activation: slope 1/2 below 0, slope 1 above, clamped to [-1, 2]
TABLE_Y = [-1.0, 0.0, 2.0]
HISTORY = []  # batch sizes seen, for a log


def original_step(x, w):
    print(f"step: batch {x.shape[0]}")
    if x.shape[0] % 8 == 0:  # "fast path" for aligned batches: the same product, computed in groups of 8 rows
        h = (x.view(-1, 8, x.shape[1]) @ w).reshape(x.shape[0], w.shape[1])
    else:
        h = x @ w
    peak = h.abs().max().item()
    if peak > 4.0:  # keep activations within [-4, 4]
        h = h * (4.0 / peak)
    h = torch.from_numpy(np.interp(h.detach().numpy(), TABLE_X, TABLE_Y)).to(h.dtype)
    keep = torch.nonzero(h.sum(dim=1) > 0).squeeze(1)  # rows whose activations sum above zero
    mask = torch.zeros(h.shape[0], dtype=h.dtype)
    mask[keep] = 1.0
    HISTORY.append(x.shape[0])
    return h * mask[:, None]


def step(x, w):
    h = x @ w
    h = torch.clamp(h, -4.0, 4.0)  # keep activations within [-4, 4], no .item()
    h = torch.where(h < 0, 0.5 * torch.clamp(h, min=-2.0), torch.clamp(h, max=2.0))
    mask = (h.sum(dim=1) > 0).to(h.dtype)
    return h * mask[:, None]
