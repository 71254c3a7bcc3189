# drill: fuse
# expect: torch-fallback
"""No Triton at all: eager PyTorch."""
import torch


def add_relu(x, y):
    return torch.relu(x + y)
