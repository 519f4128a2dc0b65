"""`extgen test`: every target of every op in a generated extension folder, run on the same
random inputs (with 0, negatives, large values, NaN and infinities) over several shapes and
compared with the Python op's evaluate, the reference."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from converter.errors import ExtgenError, InputFileError
from converter.ir.reader import IRLayer, OutPort
from converter.ir.types import dtype_of, format_attr, precision
from converter.ops.op import Op
from converter.runtime.opencl.contract import output_limit
from converter.runtime.opencl.padding import Padding

__all__ = ["GPU_PADDING", "Row", "check_folder", "find_cpu_library", "format_table",
           "summary"]

CPU_LIBRARY = "libuser_cpu_extension_abi.so"
# gpu-pad: the GPU kernels again on tensors with this padding (NaN or an integer type's largest
# value in it), as the GPU plugin may hand them over: a kernel must use _OFFSET and _PITCHES
GPU_PADDING = Padding(lower=(1, 2, 1, 3), upper=(2, 1, 3, 1))
_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 60.0, -60.0, np.nan, np.inf, -np.inf]
_TOLERANCE = {"float16": 2e-2}  # else 1e-4; differences relative to max(1, |reference|)

Kernel = Callable[[list[np.ndarray]], list[np.ndarray]]


@dataclass(frozen=True)
class Row:
    """One target of one op on one case: the largest difference from the reference."""

    op: str
    target: str
    case: str
    diff: float | None  # None: not run (see note)
    ok: bool
    note: str = ""


@dataclass(frozen=True)
class Target:
    name: str
    dtype: np.dtype  # the input element type it runs on
    kernel: Callable[[IRLayer], Kernel | None]
    float_only: bool = False  # MVCL tensors are half: integer/boolean outputs do not apply
    one_output: bool = False  # the plugin runs one output: several outputs do not apply
    absent: str = "absent"  # why an op it has no kernel for is not run there
    quiet_absent: bool = False  # no row at all for such an op


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype | None) -> np.ndarray:
    """Random values of one input with edge values mixed in: floats (None) with 0, negatives,
    large, NaN and infinities; integers with 0, +-1 and their extremes (at most 2**24, which
    float32, the kernels' math, holds exactly); booleans both ways."""
    if dtype is not None and dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype is None or dtype.kind == "f":
        x, edges = (rng.standard_normal(shape) * 3).astype(np.float64), _EDGES
    else:
        info = np.iinfo(dtype)
        hi, lo = min(int(info.max), 2**24), max(int(info.min), -(2**24))
        x = rng.integers(max(lo, -100), min(hi, 100), size=shape, endpoint=True).astype(dtype)
        edges = [0, 1, hi, lo, -1] if lo < 0 else [0, 1, hi]
    flat = x.reshape(-1)
    n = min(len(edges), flat.size // 2)
    flat[rng.permutation(flat.size)[:n]] = edges[:n]
    return x


def _inputs(shapes: list[tuple[int, ...]], seed: int,
            dtypes: list[np.dtype | None] | None = None) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [_values(rng, shape, (dtypes or [None] * len(shapes))[k])
            for k, shape in enumerate(shapes)]


def _input_dtypes(cls: type[Op]) -> list[np.dtype | None]:
    """The element type each input of a generated op declares (None: floating point)."""
    declared = getattr(cls, "input_types", None) or [None] * (cls.in_ports_count or 1)
    return [None if t is None else dtype_of(t) for t in declared]


def _cases(n_in: int) -> Iterator[tuple[str, list[tuple[int, ...]]]]:
    yield "2x3x4x5", [(2, 3, 4, 5)] * n_in
    yield "1x1x1x7", [(1, 1, 1, 7)] * n_in
    if n_in > 1:
        yield "broadcast", [(2, 3, 4, 5)] + [(1, 3, 1, 1)] * (n_in - 1)


def _layer(cls: type[Op], n_in: int, outputs: list[np.ndarray], prec: str | None) -> IRLayer:
    attrs = {name: format_attr(value, cls.attr_types.get(name))
             for name, value in cls.defaults.items() if name in cls.attr_types}
    outs = [OutPort(n_in + k, prec or precision(y.dtype), [f"out{k}"], tuple(y.shape))
            for k, y in enumerate(outputs)]
    return IRLayer(1, "node", cls.type, cls.version, attrs, list(range(n_in)), outs)


def difference(got: np.ndarray, want: np.ndarray) -> float:
    """The largest |got - want| / max(1, |want|); inf when the shapes, the NaN places or the
    infinities differ."""
    g, w = (np.asarray(a, np.float64) for a in (got, want))
    if g.shape != w.shape or not np.array_equal(np.isnan(g), np.isnan(w)):
        return float("inf")
    finite = np.isfinite(w)
    if not np.array_equal(g[~finite & ~np.isnan(w)], w[~finite & ~np.isnan(w)]):
        return float("inf")
    if not finite.any():
        return 0.0
    gf, wf = g[finite], w[finite]
    return float(np.max(np.abs(gf - wf) / np.maximum(1.0, np.abs(wf))))


def _run(cls: type[Op], target: Target, case: str, ins: list[np.ndarray]) -> Row:
    if target.float_only and any(x.dtype.kind != "f" for x in ins):
        return Row(cls.type, target.name, case, None, True, "integer/boolean input")
    ins = [x.astype(target.dtype) if x.dtype.kind == "f" else x for x in ins]
    try:
        want = cls.evaluate(dict(cls.defaults), ins)
    except Exception as err:  # user code: report it in the table, do not stop
        return Row(cls.type, target.name, case, None, True, f"no reference: {err}")
    if target.float_only and any(np.asarray(y).dtype.kind != "f" for y in want):
        return Row(cls.type, target.name, case, None, True, "integer/boolean output")
    if target.one_output and (why := output_limit(target.name, len(want))):
        return Row(cls.type, target.name, case, None, True, f"not applicable: {why}")
    prec = "FP16" if target.float_only else None
    kernel = target.kernel(_layer(cls, len(ins), [np.asarray(y) for y in want], prec))
    if kernel is None:
        return Row(cls.type, target.name, "-", None, True, target.absent)
    try:
        got = kernel(ins)
    except ExtgenError as err:
        return Row(cls.type, target.name, case, float("inf"), False, str(err))
    if len(got) != len(want):  # every output is compared
        return Row(cls.type, target.name, case, float("inf"), False,
                   f"gave {len(got)} output(s), the op has {len(want)}")
    diffs = [difference(g, np.asarray(w).astype(np.asarray(g).dtype, copy=False)
                        if target.float_only else w) for g, w in zip(got, want)]
    diff = max(diffs, default=0.0)
    ok = diff <= _TOLERANCE.get(np.dtype(target.dtype).name, 1e-4)
    return Row(cls.type, target.name, case, diff, ok)


def check_ops(ops: dict[str, type[Op]], targets: list[Target]) -> list[Row]:
    rows = []
    for seed, cls in enumerate(ops[name] for name in sorted(ops)):
        try:  # an op whose evaluate is still a TODO has no reference: one row says so
            dtypes = _input_dtypes(cls)
            cls.evaluate(dict(cls.defaults), _inputs([(1, 1, 1, 2)] * len(dtypes), 0, dtypes))
        except Exception as err:  # user code: report it in the table, do not stop
            rows.append(Row(cls.type, "python", "-", None, True, f"no reference: {err}"))
            continue
        absent: set[str] = set()  # targets without this op: one row says so, not one per case
        for case, shapes in _cases(len(dtypes)):
            ins = _inputs(shapes, seed, dtypes)
            for target in targets:
                if target.name not in absent:
                    row = _run(cls, target, case, ins)
                    if row.note == target.absent:
                        absent.add(target.name)
                    if row.note != target.absent or not target.quiet_absent:
                        rows.append(row)
    return rows


def not_run(target: str, why: str) -> Row:
    """A target extgen test does not run at all: why, and what adds it."""
    return Row("*", target, "-", None, True, why)


def _beside(folder: Path) -> Path:
    """The build/ folder beside folder."""
    return (folder.parent if folder.name else folder.absolute().parent) / "build"


def find_cpu_library(folder: Path) -> Path | None:
    """The built CPU ABI library: the first under folder, else in build/ beside it (where
    docs/tutorial.md and examples/cosh build it)."""
    inside = sorted(folder.rglob(CPU_LIBRARY))
    beside = _beside(folder) / CPU_LIBRARY
    return inside[0] if inside else beside if beside.is_file() else None


def _unbuilt(folder: Path) -> str:
    if not (folder / "user_ie_extensions" / "cpu" / "CMakeLists.txt").is_file():
        return ("not generated: `extgen new --ie-cpu-ext` adds user_ie_extensions/cpu; build it "
                "with cmake (docs/tutorial.md step 5)")
    return (f"not built: no {CPU_LIBRARY} under {folder} or in {_beside(folder)}; build "
            "user_ie_extensions/cpu with cmake (docs/tutorial.md step 5) or pass "
            "--cpu_library PATH")


def find_openvino_library(library: Path | None, given: Path | None) -> Path | None:
    """The OpenVINO extension library: given, else the one beside the CPU ABI library."""
    from extgen.target_openvino import LIBRARY

    beside = None if library is None else library.with_name(LIBRARY)
    return given or (beside if beside is not None and beside.is_file() else None)


def _cpu_targets(folder: Path, library: Path | None,
                 ov_library: Path | None) -> tuple[list[Target], list[Row]]:
    """The cpu (C ABI) and openvino targets, or a row for each saying why it does not run."""
    from converter.runtime.cpu import CpuLibrary
    from extgen.target_openvino import LIBRARY, openvino_kernel

    targets, rows = [], []
    if ov_library is not None and not ov_library.is_file():
        msg = f"--openvino_library {ov_library}: no such file"
        raise InputFileError(msg)
    if library is None:
        rows.append(not_run("cpu", _unbuilt(folder)))
    else:
        lib = CpuLibrary(library)

        def cpu(layer: IRLayer) -> Kernel | None:
            return lib.kernel(layer) if lib.implements(layer) else None

        targets.append(Target("cpu", np.dtype(np.float32), cpu,
                               absent=f"not in {library}: rebuild it (cmake --build)"))
    ov_library = find_openvino_library(library, ov_library)
    ov_kernel = openvino_kernel(ov_library) if ov_library is not None else None
    if ov_kernel is not None:
        targets.append(Target("openvino", np.dtype(np.float32), ov_kernel,
                               absent=f"not in {ov_library}: rebuild it (cmake --build)"))
    elif ov_library is not None:
        rows.append(not_run("openvino", "the openvino package is not installed in this Python: "
                             "pip install openvino"))
    elif library is None:
        rows.append(not_run("openvino", f"needs the built {LIBRARY} (see the cpu row), or pass "
                             "--openvino_library PATH"))
    else:
        rows.append(not_run("openvino", (
            f"no {LIBRARY} beside {library}: cmake found no OpenVINO (see its `-- OpenVINO` "
            "line); configure again with the openvino package in the active Python and rebuild, "
            "or pass --openvino_library PATH")))
    return targets, rows


def _python_target(folder: Path, ops: dict[str, type[Op]]) -> tuple[list[Target], list[Row]]:
    """The ov-python target (the generated openvino.Op of user_ov_extensions/ in OpenVINO), or
    a row saying why it does not run."""
    from extgen.target_openvino import python_op_kernel

    package = folder / "user_ov_extensions"
    if not (package / "__init__.py").is_file():
        return [], [not_run("ov-python", "not generated: `extgen new --ov-python-op` adds "
                             "user_ov_extensions (the op for openvino.convert_model, no compiler)")]
    identities = {cls.ir_identity() for cls in ops.values()}
    kernel = python_op_kernel(package, identities)
    if kernel is None:
        return [], [not_run("ov-python", "the openvino package is not installed in this "
                             "Python: pip install openvino")]
    return [Target("ov-python", np.dtype(np.float32), kernel,
                    absent=f"not in {package}: extgen update adds it")], []


def _opencl_targets(folder: Path) -> tuple[list[Target], list[Row]]:
    """The gpu, gpu-pad and vpu targets; a failing row for each XML that cannot be loaded, and a
    row for each target that does not run."""
    from converter.runtime.opencl import GpuDevice, VpuDevice

    targets, rows = [], []
    ie = folder / "user_ie_extensions"
    for name, device, dtype, half in (("gpu", GpuDevice, np.float32, False),
                                      ("vpu", VpuDevice, np.float16, True)):
        # custom_layers.xml repeats the per-op files (the plugins' one CONFIG_FILE)
        usable, xmls = [], sorted(p for p in (ie / name).glob("*.xml")
                                  if p.name != "custom_layers.xml")
        for xml in xmls:
            try:
                device([xml])
            except ExtgenError as err:  # a stub is skipped, anything else fails
                rows.append(Row(xml.stem, name, "load", None, "unfilled" in str(err), str(err)))
                continue
            usable.append(xml)
        flag = f"`extgen new --ie-{name}-ext` adds it"
        absent = f"no {name} kernel for it in {ie / name}: {flag}"
        names = [name, "gpu-pad"] if name == "gpu" else [name]
        if not usable:
            why = (f"not generated: {flag}" if not xmls
                   else f"no usable kernel in {ie / name} (see its load rows)")
            rows += [not_run(n, why) for n in names]
            continue
        targets.append(Target(name, np.dtype(dtype), device(usable).kernel, half,
                               one_output=True, absent=absent))
        if name == "gpu":
            padded = GpuDevice(usable, padding=GPU_PADDING).kernel
            targets.append(Target("gpu-pad", np.dtype(dtype), padded, one_output=True,
                                   absent=absent))
    return targets, rows


def check_folder(folder: Path, cpu_library: Path | None = None, *, only: str | None = None,
                 openvino_library: Path | None = None) -> list[Row]:
    """Rows for every op (or only that op type) and target in folder (what `extgen new` wrote,
    built or not); a target that does not run at all has one row (op *) saying why."""
    from converter.ops.loader import python_op_classes
    from extgen.generator.config import snake_case

    mo = folder / "user_mo_extensions"
    ops = python_op_classes(mo) if mo.is_dir() else {}
    ops = {k: v for k, v in ops.items() if only in (None, k)}
    if not ops:
        msg = (f"{folder}: no ops with an evaluate in user_mo_extensions/ops "
               "(give the folder `extgen new` wrote with the mo-op target)")
        raise InputFileError(msg)
    library = cpu_library or find_cpu_library(folder)
    cpu, not_run = _cpu_targets(folder, library, openvino_library)
    python, more_rows = _python_target(folder, ops)
    cpu, not_run = cpu + python, not_run + more_rows
    from extgen.target_ovc import ovc_targets

    ovc, more_rows = ovc_targets(folder, ops, find_openvino_library(library, openvino_library))
    cpu, not_run = cpu + ovc, not_run + more_rows
    opencl, more = _opencl_targets(folder)
    kernel = None if only is None else f"{snake_case(only)}_kernel"
    mine = [r for r in not_run + more if kernel is None or r.op in ("*", kernel)]
    return mine + check_ops(ops, cpu + opencl)


def format_table(rows: list[Row]) -> str:
    lines = [f"{'op':20} {'target':13} {'case':10} {'max diff':>10}  result"]
    for r in rows:
        diff = "-" if r.diff is None else f"{r.diff:10.3g}"
        result = "FAIL" if not r.ok else "skip" if r.diff is None else "ok"
        note = f"  ({r.note})" if r.note else ""
        lines.append(f"{r.op:20} {r.target:13} {r.case:10} {diff:>10}  {result}{note}")
    return "\n".join(lines)


def summary(rows: list[Row]) -> str:
    """The table's last line: how many rows agree, and the largest difference, or which op on
    which target disagrees."""
    failed = [r for r in rows if not r.ok]
    if failed:
        targets = sorted({f"{r.op} on {r.target}" for r in failed})
        return f"{len(failed)} disagreement(s): {', '.join(targets)}"
    ran = [r.diff for r in rows if r.diff is not None]
    return (f"all agree: {len(ran)} row(s) ok, {len(rows) - len(ran)} skipped, "
            f"max diff {max(ran, default=0.0):.3g}")
