"""The legacy Model Optimizer 2023.3 as a test oracle, recorded once.

MO 2023.3 (openvino-dev) installs only on Python <= 3.11, so the tests never run it. What they
ask of it (the IR it writes for a model and flags, and what its own OpenVINO 2023.3 computes on
that IR over consecutive frames) lies in tests/data/mo_oracle/, keyed by a hash of the question:
the model's content (and its sibling files: a .prototxt beside a .caffemodel), the flags, and the
content of files the flags name. A changed model or flag finds no answer and fails, naming the
script that asks MO again: `python scripts/record_mo_fixtures.py` (any Python 3.11 it finds).

With EXTGEN_MO_PYTHON set to a Python that has openvino-dev 2023.3 (the script sets it), each
question is put to MO and its answer recorded.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent / "data" / "mo_oracle"
RERECORD = "python scripts/record_mo_fixtures.py"
_RUN_FRAMES = Path(__file__).resolve().parent / "front" / "kaldi_mo_run.py"
_OP_CLASSES = Path(__file__).resolve().parent / "legacy" / "mo_op_classes_probe.py"
_PASS_PROBE = Path(__file__).resolve().parent / "legacy" / "mo_pass_probe.py"


def _recorder() -> str | None:
    return os.environ.get("EXTGEN_MO_PYTHON") or None


def _run_mo(python: str, model: Path, out: Path, flags: list[str],
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python", **(env or {})}
    return subprocess.run([python, "-m", "openvino.tools.mo", "--input_model", str(model),
                           "--output_dir", str(out), *flags],
                          capture_output=True, text=True, env=env, timeout=600)


class Refused(Exception):
    """MO 2023.3 refused the conversion (recorded: its error lines)."""


def convert(model: Path, out: Path, flags: Sequence[str] = (),
            disabled: Sequence[str] = ()) -> Path:
    """out/<model stem>.xml (and .bin): MO 2023.3's IR of model with flags, and with the
    transformation classes `disabled` (`module.Class`) switched off through MO_DISABLED_TRANSFORMS
    (utils/class_registration.py); raises Refused where MO failed without them."""
    flags = [str(f) for f in flags]
    digests = [_model_digest(model), *(_flag_digest(f) for f in flags)]
    key = _key(*digests, *(["disabled:" + ",".join(sorted(disabled))] if disabled else []))
    folder, refused = FIXTURES / "ir" / key, FIXTURES / "refusals" / f"{key}.txt"
    out.mkdir(parents=True, exist_ok=True)
    xml = out / f"{model.stem}.xml"
    if python := _recorder():
        env = {"MO_DISABLED_TRANSFORMS": ",".join(sorted(disabled))} if disabled else None
        done = _run_mo(python, model, out, flags, env)
        if done.returncode != 0 and disabled:
            _record_refusal(done, refused)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        refused.unlink(missing_ok=True)
        _record_ir(xml, folder, FIXTURES / "ir" / _key(*digests) if disabled else None)
        (folder / "question.json").write_text(json.dumps(
            {"model": model.name, "flags": [_shown(f) for f in flags],
             **({"disabled": sorted(disabled)} if disabled else {})}, indent=1) + "\n")
        return xml
    if refused.is_file() and disabled:
        raise Refused(refused.read_text().strip())
    if not folder.is_dir():
        pytest.fail(f"no recorded MO 2023.3 answer for {model.name} {' '.join(flags)}"
                    f"{' without ' + ','.join(disabled) if disabled else ''}: run {RERECORD}")
    if (folder / "same_as").is_file():
        folder = FIXTURES / "ir" / (folder / "same_as").read_text().strip()
    shutil.copy(folder / "ir.xml", xml)
    shutil.copy(folder / "ir.bin", xml.with_suffix(".bin"))
    return xml


def _record_refusal(done: subprocess.CompletedProcess, answer: Path) -> None:
    lines = [ln for ln in (done.stdout + done.stderr).splitlines()
             if "[ ERROR ]" in ln or ln.startswith("Exception")]
    answer.parent.mkdir(parents=True, exist_ok=True)
    answer.write_text("\n".join(lines)[-3000:] + "\n")
    raise Refused("\n".join(lines)[-3000:])


def _record_ir(xml: Path, folder: Path, same: Path | None) -> None:
    """The IR into folder; only a pointer (`same_as`) where it is, but for the names MO numbers
    from run to run, the one recorded in `same` (MO's IR without passes that changed nothing
    the IR shows)."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in ("same_as", "ir.xml", "ir.bin"):
        (folder / old).unlink(missing_ok=True)
    if same is not None and (same / "ir.xml").is_file() and _same_ir(same / "ir.xml", xml):
        (folder / "same_as").write_text(same.name + "\n")
        return
    shutil.copy(xml, folder / "ir.xml")
    shutil.copy(xml.with_suffix(".bin"), folder / "ir.bin")


def _same_ir(a: Path, b: Path) -> bool:
    def unnamed(xml: Path) -> str:
        return re.sub(r' name="[^"]*"', "", xml.read_text())

    return (unnamed(a) == unnamed(b)
            and a.with_suffix(".bin").read_bytes() == b.with_suffix(".bin").read_bytes())


def refusal(model: Path, out: Path, flags: Sequence[str] = ()) -> str:
    """MO 2023.3's error lines for model with flags, which it refused (recorded beside the IRs,
    keyed the same way)."""
    flags = [str(f) for f in flags]
    answer = (FIXTURES / "refusals"
              / f"{_key(_model_digest(model), *(_flag_digest(f) for f in flags))}.txt")
    if python := _recorder():
        done = _run_mo(python, model, out, flags)
        assert done.returncode != 0, f"MO converted {model.name} {' '.join(flags)}"
        lines = [ln for ln in (done.stdout + done.stderr).splitlines()
                 if "[ ERROR ]" in ln or ln.startswith("Exception")]
        answer.parent.mkdir(parents=True, exist_ok=True)
        answer.write_text("\n".join(lines)[-3000:] + "\n")
    elif not answer.is_file():
        pytest.fail(f"no recorded MO 2023.3 refusal of {model.name} {' '.join(flags)}: "
                    f"run {RERECORD}")
    return answer.read_text()


def changed_passes(model: Path, out: Path, flags: Sequence[str] = ()) -> list[str]:
    """The transformation classes (`module.Class`) that changed MO 2023.3's graph of model with
    flags (tests/legacy/mo_pass_probe.py); those not listed convert it the same disabled."""
    flags = [str(f) for f in flags]
    answer = FIXTURES / "passes" / (_key(_model_digest(model), *(_flag_digest(f) for f in flags),
                                         "probe:" + _file_digest(_PASS_PROBE)) + ".json")
    if python := _recorder():
        out.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"}
        done = subprocess.run([python, str(_PASS_PROBE), str(out / "changed.json"),
                               "--input_model", str(model), "--output_dir", str(out), *flags],
                              capture_output=True, text=True, timeout=600, env=env)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        answer.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(out / "changed.json", answer)
    elif not answer.is_file():
        pytest.fail(f"no recorded MO 2023.3 pass changes of {model.name}: run {RERECORD}")
    return json.loads(answer.read_text())


def run_frames(xml: Path, frames: np.ndarray, tmp_path: Path) -> np.ndarray:
    """xml's outputs over consecutive frames ([T, dim] or [T, N, dim]) in MO's own OpenVINO
    2023.3, one infer request (state kept): today's OpenVINO runs MO's splice layout wrongly."""
    frames = np.ascontiguousarray(frames, np.float32)
    key = _key(_file_digest(xml), _file_digest(xml.with_suffix(".bin")),
               hashlib.sha256(repr(frames.shape).encode() + frames.tobytes()).hexdigest())
    answer = FIXTURES / "frames" / f"{key}.npy"
    if python := _recorder():
        np.save(tmp_path / "frames.npy", frames)
        done = subprocess.run([python, str(_RUN_FRAMES), str(xml), str(tmp_path / "frames.npy"),
                               str(tmp_path / "mo_out.npy")], capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        answer.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / "mo_out.npy", answer)
    elif not answer.is_file():
        pytest.fail(f"no recorded OpenVINO 2023.3 run of {xml.name} on these frames: "
                    f"run {RERECORD}")
    return np.load(answer)


def op_classes() -> dict[str, dict]:
    """`module.Class` -> what MO 2023.3's op class of that ops module puts on a node it creates
    with default attributes: op, type, version, `in` and `out` port counts."""
    answer = FIXTURES / "op_classes.json"
    if python := _recorder():
        done = subprocess.run([python, str(_OP_CLASSES)], capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        answer.parent.mkdir(parents=True, exist_ok=True)
        answer.write_text(done.stdout + "\n")
    elif not answer.is_file():
        pytest.fail(f"no recorded MO 2023.3 op classes: run {RERECORD}")
    return json.loads(answer.read_text())


def phase_graphs(model: Path, dumper: Path, out: Path) -> tuple[dict[str, list[dict]], Path]:
    """(phase -> what MO 2023.3's legacy pipeline had at that phase boundary of model, as the
    extension folder `dumper` writes it into $EXTGEN_PHASE_DUMP/<phase>.json; out/mo.xml, the
    IR MO wrote). MO runs with --use_legacy_frontend: its Python pipeline, the one legacy
    extensions run in."""
    digests = [_model_digest(model)] + [_file_digest(f) for f in sorted(dumper.rglob("*.py"))]
    folder = FIXTURES / "phases" / _key(*digests)
    out.mkdir(parents=True, exist_ok=True)
    if python := _recorder():
        flags = ["--use_legacy_frontend", "--extensions", str(dumper), "--compress_to_fp16=False"]
        done = _run_mo(python, model, out, flags, {"EXTGEN_PHASE_DUMP": str(out)})
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        folder.mkdir(parents=True, exist_ok=True)
        for dump in out.glob("*.json"):
            shutil.copy(dump, folder / dump.name)
        for suffix in (".xml", ".bin"):
            shutil.copy(out / f"{model.stem}{suffix}", folder / f"ir{suffix}")
    elif not folder.is_dir():
        pytest.fail(f"no recorded MO 2023.3 phase graphs of {model.name}: run {RERECORD}")
    for suffix in (".xml", ".bin"):
        shutil.copy(folder / f"ir{suffix}", out / f"mo{suffix}")
    graphs = {dump.stem: json.loads(dump.read_text()) for dump in sorted(folder.glob("*.json"))}
    return graphs, out / "mo.xml"


def _key(*digests: str) -> str:
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()[:20]


def _model_digest(model: Path) -> str:
    """The model and its siblings of the same stem (an MXNet `<name>-0000.params` with its
    `<name>-symbol.json`: two nets without weights have the same params file); an ONNX model
    by its graph and opsets alone (the file also records the onnx package's version)."""
    parts = []
    siblings = set(model.parent.glob(f"{model.stem}.*"))
    if m := re.fullmatch(r"(.+)-\d{4}", model.stem):
        siblings |= set(model.parent.glob(f"{m[1]}-symbol.json"))
    for path in sorted(siblings):
        if path.suffix in (".xml", ".bin", ".mapping"):
            continue
        parts.append(path.suffix + ":" + (_onnx_digest(path) if path.suffix == ".onnx"
                                          else _file_digest(path)))
    return "|".join(parts)


def _onnx_digest(path: Path) -> str:
    import onnx

    model = onnx.load(str(path))
    opsets = sorted((o.domain, o.version) for o in model.opset_import)
    body = model.graph.SerializeToString(deterministic=True) + repr(opsets).encode()
    return hashlib.sha256(body).hexdigest()


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _flag_digest(flag: str) -> str:
    """A flag, or the content of the file it names (its path differs from run to run)."""
    return "file:" + _file_digest(Path(flag)) if os.path.isfile(flag) else flag


def _shown(flag: str) -> str:
    return f"<file {Path(flag).name}>" if os.path.isfile(flag) else flag


def seeded(request: pytest.FixtureRequest) -> np.random.Generator:
    """A generator seeded by the test's name: a test builds the same model and frames whatever
    ran before it in its worker, so its questions find their recorded answers."""
    name = f"{request.module.__name__}::{request.node.name}"
    return np.random.default_rng(zlib.crc32(name.encode()))
