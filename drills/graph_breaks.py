# drill: graph-breaks
"""Graph breaks and recompiles: make a model step compile as one graph, once, for every batch size.

`original_step` below is a small model step as it is often first written. Under torch.compile it breaks the graph
four times and recompiles on almost every call: Dynamo cannot put a `print`, a `.item()` that feeds Python control
flow, a NumPy function it does not know or a data-dependent shape (`torch.nonzero`) into a graph, it guards on the
length of a Python list that grows each call, and on the batch size when a branch tests it.

`step(x, w)` must compute exactly what `original_step` returns, for x (B, 16) and w (16, 8) float32, with every
HOLE(...) replaced by code Dynamo can trace. Then `drill grade graph_breaks.py`: the values are compared with the
original at several batch sizes and seeds; `torch.compile(step, fullgraph=True)` (backend aot_eager) must succeed;
called with B = 24, 13, 40, 7, 64 after `torch._dynamo.mark_dynamic(x, 0)` it must compile once and never again.
Every break or recompile left is reported in Dynamo's own words, next to your line.
See what Dynamo sees yourself: `torch._dynamo.explain(original_step)(x, w)`, or TORCH_LOGS=graph_breaks,recompiles.
Stuck? `drill hint graph-breaks`.
"""
import numpy as np
import torch


def HOLE(what: str):
    """A hole for you to fill. `drill grade` reports every HOLE(...) still in this file, with its line."""
    raise NotImplementedError(f"fill the hole: {what}")


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
    HOLE("print: the log line breaks the graph; step must not print")
    h = HOLE("branch: x @ w for every batch size, with no branch on x.shape[0]")
    h = HOLE("item: h scaled by min(1, 4 / max|h|), computed as a tensor (no .item(), no Python if)")
    h = HOLE("numpy: the TABLE_X -> TABLE_Y interpolation in torch ops (np.interp is not traceable)")
    mask = HOLE("nonzero: 1.0 for rows with h.sum(dim=1) > 0, else 0.0, with the shape of a row count (no nonzero)")
    HOLE("history: the list that grows on every call makes Dynamo recompile; step must not touch it")
    return h * mask[:, None]
