# drill: graph-breaks
"""Reference solution: `step` computes what `original_step` in drills/graph_breaks.py returns, with no graph break and
one compile for every batch size (B marked dynamic)."""
import torch


def step(x, w):
    # print removed: a log line belongs outside the compiled step (or in torch._dynamo.config.reorderable_logging_functions)
    h = x @ w  # the % 8 "fast path" computed the same product: one path, no guard on the batch size
    h = h * torch.clamp(4.0 / h.abs().amax(), max=1.0)  # min(1, 4 / peak) as a tensor: no .item(), no Python if
    h = torch.where(h < 0, 0.5 * h, h).clamp(-1.0, 2.0)  # np.interp over (-2, -1), (0, 0), (2, 2) in torch
    mask = (h.sum(dim=1) > 0).to(h.dtype)  # a 0/1 weight per row instead of the rows' indices
    # HISTORY.append removed: the list grew on every call, and Dynamo guarded on its length
    return h * mask[:, None]
