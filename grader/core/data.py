"""Input makers for drill specs: data that makes mistakes visible (negatives, zeros, large magnitudes).

torch is imported inside the functions: `drills.specs` imports this module, and the CLI's parent process (which
never runs a kernel) should not pay torch's ~1 s import.
"""
from __future__ import annotations


def dtype_of(name: str):
    import torch
    return {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
            "float64": torch.float64}[name]


def shape_of(size) -> tuple:
    return (int(size),) if isinstance(size, int) else tuple(int(s) for s in size)


def numel_of(size) -> int:
    """Elements in a spec size: a numel (1-D drills) or a shape."""
    n = 1
    for s in shape_of(size):
        n *= s
    return n


def draw(spec, size, seed: int, device: str, make=None) -> list:
    """The drill's inputs at `size`, drawn with a generator on `device` (a CPU draw of 4096^2 float16 values takes
    a second; the input makers draw on their generator's device). `make`: another input maker (default make_inputs)."""
    import torch
    gen = torch.Generator(device=device).manual_seed(seed)
    return [t.to(device) for t in (make or spec.make_inputs)(size, gen)]


def size_label(size) -> str:
    """How a size is named in messages: "n=16,777,233" (1-D) or the shape, "4096x4096x4096"."""
    return f"n={size:,}" if isinstance(size, int) else "x".join(str(int(s)) for s in size)


def mixed(size, gen, dtype="float32", scale: float = 1.0):
    """Normal values with 5 % zeros, 5 % large magnitudes (1e3..1e4, both signs) and the rest ~N(0, scale).

    Drawn in float32 (the drills' dtype; float64 draws cost 2x at 2^24 elements, where CUDA grades spend their time),
    on the generator's device: a CUDA generator draws CUDA-only sizes on the GPU (grader.run.child.CallRunner).
    """
    import torch

    shape = shape_of(size)
    x = torch.randn(shape, generator=gen, dtype=torch.float32, device=gen.device)
    if scale != 1.0:
        x.mul_(scale)
    flat = x.view(-1)
    pick = torch.rand(flat.numel(), generator=gen, dtype=torch.float32, device=gen.device)
    mag = torch.rand(flat.numel(), generator=gen, dtype=torch.float32, device=gen.device).mul_(9e3).add_(1e3)
    big = (pick >= 0.05) & (pick < 0.10)
    flat.copy_(torch.where(big, torch.where(flat < 0, -mag, mag), flat))
    flat.masked_fill_(pick < 0.05, 0.0)
    return x.to(dtype_of(dtype))


def normal(size, gen, dtype="float32", scale: float = 1.0, shift: float = 0.0):
    import torch

    x = torch.randn(shape_of(size), generator=gen, dtype=torch.float64, device=gen.device) * scale + shift
    return x.to(dtype_of(dtype))


def default_grad_output(shape, dtype, gen):
    """A training drill's dy when its spec names none: normal values; a 0-dim loss gets a random scale in
    [0.25, 1.75), so a backward that ignores its grad_output is seen."""
    import torch
    if len(shape) == 0:
        return (torch.rand((), generator=gen, dtype=torch.float64) * 1.5 + 0.25).to(dtype)
    return torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)
