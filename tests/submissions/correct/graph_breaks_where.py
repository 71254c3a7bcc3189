# drill: graph-breaks
# expect: pass
# A nervous candidate's version: every step spelled out with torch.where and explicit tensors.
import torch


def step(x, w):
    h = torch.matmul(x, w)
    peak = h.abs().max()
    factor = torch.where(peak > 4.0, 4.0 / peak, torch.ones_like(peak))
    h = h * factor
    h = torch.where(h < -2.0, torch.full_like(h, -1.0),
                    torch.where(h < 0.0, h * 0.5, torch.minimum(h, torch.full_like(h, 2.0))))
    keep = torch.where(h.sum(dim=1) > 0, 1.0, 0.0).to(h.dtype)
    return h * keep.unsqueeze(1)
