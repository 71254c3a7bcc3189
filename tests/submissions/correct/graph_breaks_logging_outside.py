# drill: graph-breaks
# expect: pass
# The log kept, outside the compiled step: the caller logs; step itself is pure tensor code.
import torch
import torch.nn.functional as F

HISTORY = []


def step(x, w):
    h = F.linear(x, w.t())
    h = h * (4.0 / h.abs().amax()).clamp(max=1.0)
    h = torch.minimum(F.leaky_relu(h, 0.5), torch.tensor(2.0)).clamp(min=-1.0)
    return h * (h.sum(1, keepdim=True) > 0)


def logged_step(x, w):  # not compiled: the Python side effect lives here
    HISTORY.append(x.shape[0])
    return step(x, w)
