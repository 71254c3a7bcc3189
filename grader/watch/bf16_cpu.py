"""bfloat16 arithmetic under Triton's interpreter, computed as the GPU computes it.

Triton 3.6 and 3.9 keep bfloat16 as uint16 in numpy and apply numpy's ops to those bits: x * x for x = 1.5 gives
2.5e-29, tl.sum of [1.5, 2.25, -3, 4] gives -1.3e-38, and a comparison of two negative numbers is reversed. The
GPU computes a bf16 op on the exact values and rounds the result to bf16 (round to nearest even): sm_80+ has bf16
add/mul/fma, and transcendental ops are computed in fp32 and rounded. So every op here widens its bf16 operands to
fp32 (exact: bf16 is fp32 with its low 16 bits zero), runs the interpreter's own fp32 op, and rounds a float
result back to bf16 to nearest even. A product of two bf16 values is exact in fp32, so mul is correctly rounded; a
sum may round twice (fp32, then bf16), at most one bf16 ulp in rare ties, far inside any bf16 tolerance.
A bf16 tl.sum adds in bf16 as the GPU does, rounding every partial sum (a pairwise tree: the GPU's per-thread then
cross-thread order rounds as often), and tl.cumsum rounds each running sum; max/min and other reductions run on the
fp32 values and round once (exact for max/min).
tl.dot of bf16 operands multiplies exactly and accumulates in the accumulator's dtype, as the tensor cores do.

The interpreter's own fp32 -> bf16 cast truncates (its RTNE mode drops ties and the carry into the exponent);
the GPU's `.to(tl.bfloat16)` rounds to nearest even, so casts go through the same rounding.

What cannot be emulated (a bf16 atomic read-modify-write runs in the interpreter's C++ on the raw bits) raises
`NotCheckedOnCPU`: that call is reported as not checked on CPU, never as the learner's error.
"""
from __future__ import annotations

import numpy as np

from grader.core import catalog


class NotCheckedOnCPU(NotImplementedError):
    """Kernel code the interpreter cannot run as the GPU would: the call is left unchecked, not failed."""

    learner_facing = True


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16_bits(values: np.ndarray) -> np.ndarray:
    """Round to nearest even, as the GPU's cvt.rn.bf16.f32; NaN stays a quiet NaN."""
    f = np.asarray(values, dtype=np.float32)
    bits = f.view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    out = (rounded >> np.uint32(16)).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(0x7FC0), out)


def install() -> None:
    import triton.language as tl
    from triton.runtime import interpreter

    cls = interpreter.InterpreterBuilder
    if getattr(cls.binary_op, "_drill_bf16", False):
        return
    Handle = interpreter.TensorHandle

    def is_bf16(h) -> bool:  # the cheap numpy test first: this runs on every operation of every program
        return getattr(getattr(h, "data", None), "dtype", None) == np.uint16 \
            and getattr(getattr(h, "dtype", None), "scalar", None) == tl.bfloat16

    def up(h):
        return Handle(bf16_bits_to_f32(h.data), tl.float32) if is_bf16(h) else h

    def down(result):
        """A float result back to bf16; a comparison's bools keep their data, tagged as the bf16 op tags them."""
        if result.data.dtype == np.float32:
            return Handle(f32_to_bf16_bits(result.data), tl.bfloat16)
        return Handle(result.data, tl.bfloat16)

    def widened(orig, n_args: int):
        def op(self, *args, **kwargs):
            if not any(is_bf16(a) for a in args[:n_args]):
                return orig(self, *args, **kwargs)
            return down(orig(self, *[up(a) if i < n_args else a for i, a in enumerate(args)], **kwargs))
        op._drill_bf16 = True
        return op

    cls.binary_op = widened(cls.binary_op, 2)  # + - * / %, min/max, comparisons (bools kept)
    cls.unary_op = widened(cls.unary_op, 1)  # neg, exp, log, sqrt, sin, floor, ...
    cls.ternary_op = widened(cls.ternary_op, 3)  # clamp, and where() (exact: bf16 -> fp32 -> bf16 round-trips)
    for name in ("create_fma", "create_rsqrt", "create_erf"):
        if hasattr(cls, name):
            setattr(cls, name, widened(getattr(cls, name), 3))
    orig_dot = cls.create_dot

    def create_dot(self, a, b, d, *args, **kwargs):
        if not (is_bf16(a) or is_bf16(b) or is_bf16(d)):
            return orig_dot(self, a, b, d, *args, **kwargs)
        result = orig_dot(self, up(a), up(b), up(d), *args, **kwargs)
        return down(result) if is_bf16(d) else result

    create_dot._drill_bf16 = True
    cls.create_dot = create_dot

    orig_cast = cls.cast_impl

    def cast_impl(self, src, dst_type):
        to_bf16, from_bf16 = dst_type.scalar == tl.bfloat16, src.dtype.scalar == tl.bfloat16
        if to_bf16 and not from_bf16:  # any float or int -> bf16: round to nearest even (ints too: uint16 bits)
            return Handle(f32_to_bf16_bits(np.asarray(src.data).astype(np.float32)), tl.bfloat16)
        if from_bf16 and not to_bf16:  # bf16 -> anything: from the value, not from the 16-bit pattern
            f32 = Handle(bf16_bits_to_f32(src.data), tl.float32)
            return f32 if dst_type.scalar == tl.float32 else orig_cast(self, f32, dst_type)
        return orig_cast(self, src, dst_type)

    cls.cast_impl = cast_impl
    orig_fp_to_fp = cls.create_fp_to_fp

    def create_fp_to_fp(self, src, dst_type, rounding_mode):
        rtne = rounding_mode is None or "RTNE" in str(rounding_mode).upper()
        if dst_type.scalar == tl.bfloat16 and rtne and src.dtype.scalar != tl.bfloat16:
            return cast_impl(self, src, dst_type)
        return orig_fp_to_fp(self, src, dst_type, rounding_mode)

    cls.create_fp_to_fp = create_fp_to_fp

    orig_rmw = cls.create_atomic_rmw

    def create_atomic_rmw(self, rmw_op, ptr, val, *args, **kwargs):
        if is_bf16(val):
            raise NotCheckedOnCPU(catalog.text("check_details.bf16_atomic", "en"))
        return orig_rmw(self, rmw_op, ptr, val, *args, **kwargs)

    cls.create_atomic_rmw = create_atomic_rmw

    # Reductions and scans: tl.sum / tl.max / tl.cumsum of bf16 would reduce the bit patterns.
    reduce_scan = interpreter.ReduceScanOpInterface
    orig_apply = reduce_scan.apply

    def apply(self, input):
        inputs = input if isinstance(input, tuple) else (input,)
        if not any(is_bf16(getattr(t, "handle", None)) for t in inputs):
            return orig_apply(self, input)
        summed = bf16_sum(self, inputs, tl, interpreter)
        if summed is not None:
            return summed if isinstance(input, tuple) else summed[0]
        widened_inputs = tuple(_as_f32_tensor(t, tl, up) if is_bf16(getattr(t, "handle", None)) else t
                               for t in inputs)
        out = orig_apply(self, widened_inputs if isinstance(input, tuple) else widened_inputs[0])
        outs = out if isinstance(out, tuple) else (out,)
        was = [is_bf16(getattr(t, "handle", None)) for t in inputs]
        rounded = tuple(_as_bf16_tensor(o, tl, down) if (was[i] if i < len(was) else was[0])
                        and getattr(o, "dtype", None) is not None and o.dtype.scalar == tl.float32 else o
                        for i, o in enumerate(outs))
        return rounded if isinstance(out, tuple) else rounded[0]

    reduce_scan.apply = apply


def _as_f32_tensor(t, tl, up):
    ty = tl.block_type(tl.float32, list(t.type.shape)) if t.type.is_block() else tl.float32
    return tl.tensor(up(t.handle), ty)


def _as_bf16_tensor(t, tl, down):
    ty = tl.block_type(tl.bfloat16, list(t.type.shape)) if t.type.is_block() else tl.bfloat16
    return tl.tensor(down(t.handle), ty)


def _round_bf16(values: np.ndarray) -> np.ndarray:
    return bf16_bits_to_f32(f32_to_bf16_bits(values))


def bf16_sum(op, inputs, tl, interpreter):
    """tl.sum / tl.cumsum of one bf16 tensor with bf16 rounding of every partial sum; None for other reductions."""
    if len(inputs) != 1 or op.combine_fn is not tl.standard._sum_combine:
        return None
    t = inputs[0]
    data = bf16_bits_to_f32(t.handle.data)
    axis = op.axis
    if isinstance(op, interpreter.ReduceOps):
        a = data.reshape(-1) if axis is None else np.moveaxis(data, axis, -1)
        width = 1 << max(int(a.shape[-1]) - 1, 0).bit_length()
        if width != a.shape[-1]:  # pad with zeros to a power of two: adding 0 is exact
            a = np.concatenate([a, np.zeros(a.shape[:-1] + (width - a.shape[-1],), np.float32)], axis=-1)
        while a.shape[-1] > 1:
            a = _round_bf16(a[..., 0::2] + a[..., 1::2])
        total = a[..., 0]
        if op.keep_dims:
            total = np.expand_dims(total, tuple(range(data.ndim)) if axis is None else axis)
        return (op.to_tensor(f32_to_bf16_bits(total), tl.bfloat16),)
    if isinstance(op, interpreter.ScanOps):
        a = np.moveaxis(data, axis, 0).copy()
        if op.reverse:
            a = a[::-1].copy()
        for i in range(1, a.shape[0]):
            a[i] = _round_bf16(a[i - 1] + a[i])
        if op.reverse:
            a = a[::-1]
        return (op.to_tensor(np.ascontiguousarray(np.moveaxis(f32_to_bf16_bits(a), 0, axis)), tl.bfloat16),)
    return None
