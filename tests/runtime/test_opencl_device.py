"""Choosing the OpenCL device by trying it: a fake platform whose compiler rejects every kernel
(as PoCL 3.0 does on CPUs newer than its LLVM) sits before the real devices, so the fallback,
the remembered verdicts and the one-line errors are tested on every machine."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from converter.runtime.opencl import GpuDevice, build, device
from converter.system import install_command
from extgen.cli import main
from extgen.errors import KernelBuildError
from tests.child_env import child_env

KERNELS = Path(__file__).parent / "kernels" / "gpu"
ROOT = Path(__file__).resolve().parents[2]
BUILD_LOG = ("clBuildProgram failed: BUILD_PROGRAM_FAILURE - clBuildProgram failed\n\n"
             "Build on <pyopencl.Device 'pthread-newcpu'>:\n\n"
             "error: unknown target CPU 'generic'\n")


class FakeCL:
    """Just enough of pyopencl for one platform whose builds all fail."""

    class Error(Exception):
        pass

    class _Device:
        name, driver_version = "pthread-newcpu", "3.0-rc2"

    class _Platform:
        name, version = "Broken CL", "OpenCL 3.0 Broken 3.0-rc2"

        def get_devices(self):
            return [FakeCL._Device()]

    def get_platforms(self):
        return [self._Platform()]

    def Context(self, devices):  # noqa: N802 (pyopencl's name)
        return object()

    def Program(self, ctx, source):  # noqa: N802
        fake = self

        class _Program:
            def build(self, options=""):
                raise fake.Error(BUILD_LOG)

        return _Program()


FAKE = FakeCL()
_CANDIDATES, _PROBE = device.candidates, device.probe  # the real ones, before any monkeypatch


def _fake_first(cl):
    return _CANDIDATES(FAKE) + _CANDIDATES(cl)


def _try(cand: device.Candidate) -> str:
    return _PROBE(FAKE if cand.platform == "Broken CL" else build.opencl(), cand)


@pytest.fixture
def verdicts(tmp_path: Path) -> device.Verdicts:
    return device.Verdicts(tmp_path / "devices.json")


def test_a_device_that_cannot_build_is_skipped(verdicts: device.Verdicts) -> None:
    cands = _fake_first(build.opencl())
    chosen = device.choose(cands, "", verdicts, _try)
    assert chosen.platform != "Broken CL"
    assert verdicts.get(cands[0]) == "error: unknown target CPU 'generic'"
    assert verdicts.get(chosen) == ""


def test_verdicts_are_remembered_across_runs(verdicts: device.Verdicts) -> None:
    cands = _fake_first(build.opencl())
    first = device.choose(cands, "", verdicts, _try)

    def no_probe(cand: device.Candidate) -> str:
        raise AssertionError(f"probed {cand.label} again")

    again = device.Verdicts(verdicts.path)  # a later run reads the file
    assert device.choose(cands, "", again, no_probe) == first


def test_a_new_driver_version_is_probed_again(verdicts: device.Verdicts) -> None:
    (cand,) = device.candidates(FAKE)
    verdicts.put(cand, "")
    newer = device.Candidate(cand.platform, cand.device, "3.1", cand.version, cand.index)
    assert verdicts.get(newer) is None


def test_a_named_broken_device_is_one_line(verdicts: device.Verdicts) -> None:
    with pytest.raises(KernelBuildError) as err:
        device.choose(_fake_first(build.opencl()), "broken", verdicts, _try)
    text = str(err.value)
    assert "\n" not in text
    assert "EXTGEN_OPENCL_DEVICE='broken'" in text
    assert "pthread-newcpu (Broken CL, driver 3.0-rc2)" in text
    assert "unknown target CPU 'generic'" in text


def test_nothing_builds_names_each_device_and_the_fix(verdicts: device.Verdicts) -> None:
    with pytest.raises(KernelBuildError) as err:
        device.choose(device.candidates(FAKE), "", verdicts, _try)
    text = str(err.value)
    assert "\n" not in text
    assert "pthread-newcpu (Broken CL, driver 3.0-rc2): error: unknown target CPU" in text
    assert "install a CPU OpenCL driver" in text


def test_a_name_that_matches_nothing_lists_the_devices(verdicts: device.Verdicts) -> None:
    with pytest.raises(KernelBuildError, match=r"matches no OpenCL device \(have: pthread-newcpu"):
        device.choose(device.candidates(FAKE), "nvidia", verdicts, _try)


def test_platform_and_device_index() -> None:
    (cand,) = device.candidates(FAKE)
    assert cand.matches("0:0") and not cand.matches("1:0")
    assert cand.matches("BROKEN") and cand.matches("newcpu")


@pytest.mark.parametrize(("release", "expected"), [
    ('ID=debian\n', "apt-get install pocl-opencl-icd"),
    ('ID=ubuntu\nID_LIKE=debian\n', "apt-get install pocl-opencl-icd"),
    ('ID="rocky"\nID_LIKE="rhel centos fedora"\n', "dnf install pocl"),
    ('ID=gentoo\n', ""),
])
def test_install_command_per_distribution(tmp_path: Path, release: str, expected: str) -> None:
    (tmp_path / "os-release").write_text(release)
    assert install_command("pocl-opencl-icd", "pocl", tmp_path / "os-release").endswith(expected)


@pytest.fixture
def fresh_device(monkeypatch, tmp_path: Path):
    """The process's device choice made anew, with the fake platform listed first."""
    monkeypatch.setattr(build, "_state", {})
    monkeypatch.setattr(build, "_programs", {})
    monkeypatch.setattr(build, "_kernels", {})
    monkeypatch.setattr(device, "candidates", _fake_first)
    monkeypatch.setattr(device, "probe", lambda cl, cand: _try(cand))
    monkeypatch.setenv("EXTGEN_CACHE_DIR", str(tmp_path / "cache"))


def test_kernels_run_on_the_device_that_works(fresh_device) -> None:
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(1, 2, 3, 4)
    from tests.runtime.test_opencl_gpu import layer, leaky

    (y,) = GpuDevice([KERNELS / "leaky_relu.xml"]).kernel(layer("LeakyRelu", x.shape))([x])
    np.testing.assert_allclose(y, leaky(x, 0.0))
    assert build.chosen_device().platform != "Broken CL"


def test_a_broken_named_device_stops_kernels_and_doctor(fresh_device, monkeypatch, capsys) -> None:
    monkeypatch.setenv("EXTGEN_OPENCL_DEVICE", "Broken CL")
    from tests.runtime.test_opencl_gpu import layer

    with pytest.raises(KernelBuildError, match="pthread-newcpu.*unknown target CPU 'generic'"):
        GpuDevice([KERNELS / "leaky_relu.xml"]).kernel(layer("LeakyRelu", (1, 2)))(
            [np.zeros((1, 2), np.float32)])
    assert main(["doctor", "opencl"]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith("missing  opencl") and "unknown target CPU 'generic'" in out
    assert len(out.splitlines()) == 1


def test_oclgrind_reports_an_out_of_bounds_read(tmp_path: Path) -> None:
    """EXTGEN_OPENCL_DEVICE=oclgrind runs kernels in the simulator, which names a bad access."""
    import subprocess
    import sys

    for name in ("leaky_relu.xml", "leaky_relu.cl"):
        text = (KERNELS / name).read_text()
        (tmp_path / name).write_text(text.replace("input[in_id]", "input[in_id + 1]"))
    script = (
        "import numpy as np\n"
        "from converter.runtime.opencl import GpuDevice, build\n"
        "from tests.runtime.test_opencl_gpu import layer\n"
        f"dev = GpuDevice([{str(tmp_path / 'leaky_relu.xml')!r}])\n"
        "x = np.ones((1, 1, 2, 2), np.float32)\n"
        "dev.kernel(layer('LeakyRelu', x.shape))([x])\n"
        "print(build.chosen_device().device)\n"
    )
    env = child_env(EXTGEN_OPENCL_DEVICE="oclgrind", EXTGEN_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Oclgrind Simulator"
    assert "Invalid read of size 4" in done.stderr and "leaky_relu" in done.stderr


def test_refresh_probes_again_past_a_remembered_failure(verdicts: device.Verdicts) -> None:
    """A failure remembered from a bad moment (a busy device, a broken environment) is not
    final: a refresh (what `extgen doctor opencl` does) probes again and records the success."""
    real = _CANDIDATES(build.opencl())
    for cand in real:
        verdicts.put(cand, "error: out of resources")
    with pytest.raises(KernelBuildError, match="out of resources"):
        device.choose(real, "", verdicts, _try)
    chosen = device.choose(real, "", verdicts, _try, refresh=True)
    assert device.Verdicts(verdicts.path).get(chosen) == ""


def test_verdicts_of_another_process_are_kept(verdicts: device.Verdicts) -> None:
    (fake,) = device.candidates(FAKE)
    other = device.Verdicts(verdicts.path)  # a second process, loaded before the first writes
    verdicts.put(fake, "error: one")
    newer = device.Candidate(fake.platform, fake.device, "9.9", fake.version, fake.index)
    other.put(newer, "")
    again = device.Verdicts(verdicts.path)
    assert again.get(fake) == "error: one" and again.get(newer) == ""



def test_opencl_beside_tensorflow_is_one_line(tmp_path: Path) -> None:
    """PoCL's compiler and TensorFlow each load LLVM: in a process that imported TensorFlow,
    listing the OpenCL platforms or building a kernel crashed it (segfault) or hung. Running a
    kernel there refuses in one line that says what to do, and the process lives on."""
    import subprocess
    import sys

    script = (
        "import numpy as np, tensorflow\n"
        "from converter.runtime.opencl import GpuDevice\n"
        "from extgen.errors import KernelBuildError\n"
        "from tests.runtime.test_opencl_gpu import layer\n"
        f"dev = GpuDevice([{str(KERNELS / 'leaky_relu.xml')!r}])\n"
        "x = np.ones((1, 1, 2, 2), np.float32)\n"
        "try:\n"
        "    dev.kernel(layer('LeakyRelu', x.shape))([x])\n"
        "except KernelBuildError as err:\n"
        "    print(err)\n"
    )
    env = child_env(EXTGEN_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=ROOT, check=False, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (line,) = done.stdout.strip().splitlines()
    assert "PoCL in a process that imported TensorFlow" in line and "`extgen run`" in line


def test_a_build_on_pocl_after_tensorflow_refuses(monkeypatch) -> None:
    """The device was chosen before TensorFlow came in: a build on PoCL refuses then too; a
    build on another platform, or with no TensorFlow, goes on."""
    device.llvm_clash("Portable Computing Language")
    monkeypatch.setitem(sys.modules, "tensorflow", object())
    with pytest.raises(KernelBuildError, match="imported TensorFlow"):
        device.llvm_clash("Portable Computing Language")
    device.llvm_clash("NVIDIA CUDA")
