"""The README's first command sets up only what the example needs: extgen and the OpenVINO
engine, none of the test oracles (torch, TensorFlow, transformers, the legacy MO), so it is
light and works on every Python extgen supports; the second sets up the oracles."""

from __future__ import annotations

import re
import subprocess
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"torch", "torchvision", "tensorflow-cpu", "tensorflow", "transformers", "openvino-dev"}


def _extras() -> dict[str, set[str]]:
    """Each extra's packages, as the installed extgen declares them."""
    found: dict[str, set[str]] = {}
    for req in metadata.metadata("extgen").get_all("Requires-Dist") or []:
        extra = re.search(r"extra == \"([^\"]+)\"", req)
        if extra:
            found.setdefault(extra[1], set()).add(re.match(r"[A-Za-z0-9_.-]+", req)[0].lower())
    return found


def _recipe(target: str) -> str:
    return subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def test_make_example_installs_the_engine_and_no_test_oracle() -> None:
    assert "scripts/setup.sh example" in _recipe("example")
    assert "[$extra]" in (ROOT / "scripts" / "setup.sh").read_text()
    example = _extras()["example"]
    assert "openvino" in example and not example & HEAVY


def test_make_test_installs_the_oracles() -> None:
    assert "scripts/setup.sh test" in _recipe("test")
    assert {"torch", "tensorflow-cpu", "transformers", "openvino", "onnxruntime"} <= \
        _extras()["test"]


def test_an_unknown_job_is_one_line_and_status_2() -> None:
    done = subprocess.run(["bash", "scripts/setup.sh", "everything"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == "usage: scripts/setup.sh example|test"
