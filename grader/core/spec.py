"""What a drill is, as data: the entry point, how to make inputs, the float64 reference, sizes and tolerances.

The grader reads only these fields; it never branches on a drill's name.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parents[2]  # the checkout: grader/core/spec.py

# (rtol, atol) per dtype name, against a float64 reference.
DEFAULT_TOLERANCE = {
    "float32": (1e-5, 1e-6),
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float64": (1e-12, 1e-14),
}


@dataclass(frozen=True)
class Probe:
    """An extra input set that blames one named category when (only) it fails, e.g. all-negative rows -> `other`."""
    name: str                       # shown in the size row: "all-negative", "x30", "bfloat16"
    make_inputs: Callable           # (size, generator) -> tuple of CPU tensors
    sizes: Sequence
    category: str | None = None     # a values failure here means this; None: the drill's value_category
    kwargs: dict = field(default_factory=dict)  # extra arguments for the entry point (e.g. causal=True)
    name_zh: str = ""               # the size row's label in Chinese where `name` is words, not code


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer, as data: when the learner's output matches `reference` instead of the true one, the
    diagnosis is `category` (a forgotten 1/sqrt(D) -> `scale`, the bias added per row -> `epilogue`).
    `reference(*inputs_as_float64, meta=<the launch's constexprs>, **kwargs)` returns a tensor, or None when the
    mistake does not apply to this call (it would equal the true answer, or needs a constexpr the kernel lacks).
    A mistake that puts values in the wrong place (rows of a wrong output geometry) is told by where the kernel
    stored instead (interpreter evidence): `footprint(out, *inputs_as_float64, meta=..., **kwargs)` returns the
    storage offsets, from out's first element, of every store lane the mistaken kernel issues (duplicates and lanes
    past the end included), or None; its `reference` may then be None."""
    name: str                       # shown in the report: "no 1/sqrt(D) scale"
    category: str
    reference: Callable | None
    # The drill's own fix for this mistake, {"en": ..., "zh": ...}, shown instead of the category's generic one
    # (a category's text is written for one drill family: `indexing` speaks of 2-D flat indices, not of pages).
    fix: dict = field(default_factory=dict)
    name_zh: str = ""               # the name in Chinese (default: `name`)
    # probes this mistake cannot pass (no max subtracted overflows on x30): when one of them passes, a match on
    # another call is a coincidence (NaN where another mistake also gives NaN) and the mistake is not the cause
    refuted_by: tuple = ()
    footprint: Callable | None = None


@dataclass(frozen=True)
class DeviceLimits:
    """What a device accepts at a launch (grader/families/limits.py enforces it on every recorded launch, on every device):
    more programs or warps than this, or a block size outside the range, and the device refuses the launch."""
    name: str                       # shown in messages, e.g. "GXU" (the guide's hypothetical accelerator)
    max_programs: int               # programs per launch (the product of the grid)
    max_warps: int                  # warps per program (num_warps; Triton's default is 4 when none is passed)
    min_block: int                  # block size (the kernel's XBLOCK / BLOCK constexpr): a power of two in
    max_block: int                  # [min_block, max_block]


@dataclass(frozen=True)
class FunctionContract:
    """A pure function the learner's file must define, checked over many inputs without launching anything, e.g. a
    launch heuristic pick_config(numel) -> {"XBLOCK", "num_warps", "grid"} at sizes up to 10^9."""
    function: str                   # name of the module-level function
    signature: str                  # shown to the learner
    inputs: Sequence                # each is passed as the only argument
    check: Callable                 # (input, result) -> list of problems: {"category", "field", "rule", ...}
    # result key -> launch record key ("block", "num_warps", "programs"): the entry point's launch for numel n must
    # use what function(n) returned.
    launch_fields: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CompileOptions:
    """How `drill inductor` compiles this drill's eager function (coach/inductor/child.py), as data: torch.compile's
    mode and Inductor config overrides, names as in torch._inductor.config (dotted for nested ones). With `compare`
    set, a CUDA run compiles a second time with `compare` in place of `options` and reports what Inductor picked there
    ({}: the mode with Inductor's defaults)."""
    mode: str = "default"           # a torch.compile mode: "default", "max-autotune-no-cudagraphs", ...
    options: dict = field(default_factory=dict)  # e.g. {"max_autotune_gemm_backends": "TRITON"}
    compare: dict | None = None     # a second compile's overrides, CUDA only (None: no second compile)
    cuda_size: Any = None           # the size compiled at on CUDA (default: the CPU's, coach.inductor.pick_size)
    # compiled instead of `eager` (default: eager, else the reference): e.g. a training step, forward and backward
    # through torch.func.vjp, so Inductor's backward kernels are shown too
    function: Callable | None = None


@dataclass(frozen=True)
class CompileLab:
    """A drill graded by what torch.compile itself reports (grader/families/compiled.py): the entry point's values in
    eager and compiled, `torch.compile(entry, fullgraph=True)` with `backend`, Dynamo's graph breaks
    (`torch._dynamo.explain`) and its recompiles over `shapes` after marking `dynamic`, and, for a custom operator,
    `torch.library.opcheck` and the gradient. Causes are named by matching Dynamo's own reason text (`blame`)."""
    backend: str = "aot_eager"      # needs no C++ toolchain on CPU; "inductor" where the lab is about Inductor
    shapes: Sequence = ()           # sizes (as make_inputs takes them) called in order on one compiled function
    dynamic: dict = field(default_factory=dict)  # input index -> dims marked torch._dynamo.mark_dynamic first
    max_recompiles: int = 0         # compiles beyond the first one allowed over `shapes`
    blame: tuple = ()               # (regex over Dynamo's reason, category): a break or recompile -> the hole
    op: str = ""                    # "ns::name": a custom operator the file must register (opcheck, fake, compile)
    op_inputs: int = 0              # how many of make_inputs' tensors the op takes (the first ones)
    op_reference: Callable | None = None  # float64 reference of the op: its kernel gets the usual Triton checks
    grad: bool = False              # the gradient of every input (through eager and compiled) against the reference
    grad_mistakes: tuple = ()       # Mistake(...)s of the gradient: reference(*inputs_f64, grad_out) -> grads
    inductor_kernel: bool = False   # CUDA: Inductor's output code must launch the learner's own kernel
    source_lines: tuple = ()        # (category, regex): the line shown for a problem Dynamo names no line for
    inputs_device: str = ""         # "cpu": the entry point gets CPU tensors on every machine (a NumPy round trip
                                    # in the handed-out code); "": the grade's device


# The dtype a gradient must have: its input's (autograd itself refuses another, so a wrong one is a hard error there).
GRAD_TOLERANCE = {
    "float32": (1e-5, 1e-6),
    "float16": (2e-3, 2e-3),   # atol x error_scale: partial sums kept in fp16 (Triton tutorial 05) round once per add
    "bfloat16": (1.6e-2, 1.6e-2),
}


@dataclass(frozen=True)
class GradMistake:
    """A known wrong gradient, as data: when `tensor`'s gradient matches `reference` instead of the true one, the
    diagnosis is `category`. `reference(*inputs_f64, dy=dy_f64, launches=[launch records], **kwargs)` returns the
    wrong gradient (or a list of candidates: any one matching names the mistake), or None where it does not apply."""
    name: str                       # shown in the report: "dx without the mean(dy * w) term"
    category: str
    tensor: str                     # "x.grad", "weight.grad", ...
    reference: Callable
    name_zh: str = ""               # the name in Chinese (default: `name`)


@dataclass(frozen=True)
class GradCheck:
    wrt: tuple                      # the entry's argument names whose gradients are checked, e.g. ("x", "weight")
    # (output_shape, dtype, generator) -> dy; default: normal values (a 0-dim loss gets a random scale, so a
    # backward that ignores its grad_output is seen)
    grad_output: Callable | None = None
    # (name, inputs_f64, dy_f64) -> a tensor like the gradient: atol is relative to it (dW sums M rows)
    error_scale: Callable | None = None
    tolerance: dict = field(default_factory=dict)  # dtype name -> (rtol, atol), else GRAD_TOLERANCE
    mistakes: tuple = ()            # GradMistake(...)s, checked in order when a gradient is wrong
    race_category: str = "race"     # what non-atomic stores of two programs to one scratch element are called
    # gradient name -> what a plain values failure in it means (x.grad -> dx); default: the spec's value_category
    value_categories: dict = field(default_factory=dict)
    # inputs whose storage the backward may hand back as their own gradient, written over them by the forward
    # (Liger's fused loss): such an input is not "mutated" when its gradient is exactly that storage
    in_place: tuple = ()
    # (inputs) -> the most elements one allocation may have beyond the gradients' own storage, or None (no rule at
    # this size): a fused loss must not allocate a (T, V) buffer. Checked on every allocation the watch saw (CPU and
    # CUDA), and on CUDA also on the call's peak memory (torch.cuda.max_memory_allocated over forward + backward).
    max_alloc: Callable | None = None
    memory_category: str = "memory"

    def tolerance_for(self, dtype_name: str) -> tuple[float, float]:
        return self.tolerance.get(dtype_name, GRAD_TOLERANCE.get(dtype_name, (1e-5, 1e-6)))


@dataclass(frozen=True)
class DrillSpec:
    name: str
    entry: str                      # the function the learner's file must define
    signature: str                  # shown to the learner
    holes: tuple[str, ...]          # hole names used by HOLE("...") markers in the skeleton
    make_inputs: Callable           # (size, generator) -> tuple of CPU tensors
    reference: Callable             # float64 eager reference: (*inputs_as_float64, **kwargs) -> tensor
    sizes: Sequence                 # sizes graded everywhere (int for 1-D numel, tuple for shapes)
    cuda_sizes: Sequence = ()       # extra sizes graded on CUDA only
    seeds: int = 3
    kwargs: dict = field(default_factory=dict)   # extra non-tensor arguments for the entry point
    tolerance: dict = field(default_factory=dict)  # dtype name -> (rtol, atol); falls back to DEFAULT_TOLERANCE
    family: str = ""                # drills that share checkpoints and a report style
    max_launches: int | None = None  # fused drills: exactly this many Triton launches per call
    timeout_s: float = 60.0
    eager: Callable | None = None   # the eager PyTorch form (what the learner must beat), optional
    byte_model: Callable | None = None  # size (as in `sizes`) -> {"fused": bytes, "eager": bytes}, optional
    solution: str = ""              # file name in solutions/ when drills share one (default: <slug>.py)
    # -- fusion and speed (fused drills) --------------------------------------------------------------------------
    bytes_proof: bool = False       # interpreter: moving more bytes than byte_model's "fused" fails with `fusion`
    intermediate: Any = ""          # the value eager writes to HBM and reads back (named in the bytes proof): a str,
    #                                 or {"en": ..., "zh": ...} when it is said in words
    speedup_min: float | None = None  # CUDA: candidate must be >= this many times faster than `eager`
    bench_size: Any = 2**24 + 17    # CUDA: size the speed gate times at (odd on purpose: the tail tile counts)
    # CUDA: the speed gate's inputs and entry-point kwargs when they are not the graded ones (a convolution gated on a
    # channels-last x with padding 1, as cuDNN is measured); None: make_inputs and kwargs
    bench_inputs: Callable | None = None
    bench_kwargs: dict | None = None
    small_size: Any = 100_000       # CUDA: size where device time and host wall time are compared (launch-bound)
    speed_refs: tuple = ()          # CUDA: extra (label, fn) rows timed beside the candidate, shown only
    speed_bar: str = ""             # CUDA: the label of the speed_refs row the gate divides by (default: eager)
    # CUDA: the gate times every row (the learner, eager, speed_refs) as CUDA-graph replays, device time without the
    # host's launches (grader.speed.timing.graphed_or_plain; do_bench for all rows when one cannot be captured).
    # For kernels that serving runs inside CUDA graphs (a decode step), where the host's Python and launch cost
    # would otherwise be the figure. Drills with `grads` are always timed this way.
    speed_graphed: bool = False
    bench_sizes: Sequence = ()      # `drill bench`'s default sweep (default: 2^12..2^27, or the CUDA sizes)
    # -- 2-D, reduction, persistent and autotune drills --
    probes: tuple = ()              # Probe(...) input sets graded after `sizes`
    value_category: str = "wrong-values"  # what a plain values failure means here (e.g. indexing)
    max_programs: int | None = None  # cap on programs per launch under the interpreter (persistent drills)
    max_programs_per_sm: int | None = None  # on CUDA the cap is this many x the SM count
    autotune_min_configs: int = 0   # > 0: the kernel needs @triton.autotune with >= this many configs
    error_scale: Callable | None = None  # (*inputs_f64) -> like the reference: atol is relative to it (sums)
    masked_other: tuple | None = None  # (identity, category): masked-off load lanes must read this, e.g. -inf
    # -- a device with launch limits (grader/families/limits.py) --
    device_limits: DeviceLimits | None = None  # enforced on every launch, on CPU and CUDA alike
    contract: FunctionContract | None = None  # a pure heuristic checked over many inputs, and against the launches

    index_category: str | None = None  # what out-of-bounds index arithmetic is called (default: by dimensionality)
    # The output may have any dense, non-overlapping stride order (PyTorch's contract: torch.empty_like keeps its
    # input's strides); True where the layout is the drill's point (a contiguous result).
    contiguous_output: bool = False
    mistakes: tuple = ()            # Mistake(...)s checked, in order, when values are wrong
    # names of each tensor's dims, for messages: argument name (or "out") -> ("M", "K"); an out-of-bounds access is
    # then reported by the dimension it left ("K" of `a`), not by a flat element number
    dims: dict = field(default_factory=dict)
    input_categories: dict = field(default_factory=dict)  # input name -> what an out-of-bounds access to it means
    # input name -> {"what": {en, zh}, "fix": {en, zh}}: the drill's own words for an out-of-bounds access to it
    # (an input read through a padding tap, unmasked), shown instead of the category's generic text
    oob_texts: dict = field(default_factory=dict)
    mock_minutes: float | None = None  # a mock interview's coding clock for this drill (default: the CLI's)
    flops: Callable | None = None   # size -> floating-point operations of one call (compute-bound drills)
    compile_options: CompileOptions | None = None  # `drill inductor`: mode and Inductor config (default: plain)
    grads: GradCheck | None = None  # also graded on the gradients after out.backward(dy) (families/training.py)
    compile_lab: CompileLab | None = None  # graded by Dynamo's reports, not by Triton calls (families/compiled.py)
    # family name -> its settings, for a family with no field above: turns on grader/families/<name>.py, whose
    # `applies` or hooks read the settings (grader/families/registry.py)
    rules: dict = field(default_factory=dict)

    @property
    def two_d(self) -> bool:
        """Sizes are shapes of two or more dims (2-D texts and fixes apply)."""
        return bool(self.sizes) and not isinstance(self.sizes[0], int) and len(self.sizes[0]) >= 2

    @property
    def oob_category(self) -> str:
        return self.index_category or ("indexing" if self.two_d else "offsets")

    @property
    def stride_category(self) -> str:
        """What an index paired with another dim's stride is called: `strides` where the drill names strides (a
        hole or a probe of that name), else its word for index arithmetic (`index_category`, else by dimensionality)."""
        if "strides" in self.holes or any(p.category == "strides" for p in self.probes):
            return "strides"
        return self.oob_category

    @property
    def slug(self) -> str:
        return self.name.replace("-", "_")

    @property
    def skeleton_path(self) -> Path:
        return ROOT / "drills" / f"{self.slug}.py"

    @property
    def solution_path(self) -> Path:
        return ROOT / "solutions" / (self.solution or f"{self.slug}.py")

    def tolerance_for(self, dtype_name: str) -> tuple[float, float]:
        return self.tolerance.get(dtype_name, DEFAULT_TOLERANCE.get(dtype_name, (1e-5, 1e-6)))
