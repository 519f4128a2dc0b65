"""The VPU target says what it is: legacy (OpenVINO loads MYRIAD kernels up to 2022.3 only, the
shim anywhere), and the generated XML shows how the last OpenVINO with MYRIAD loaded it: the
API 2.0 `core.set_property`, not the API 1.0 `SetConfig`."""

from __future__ import annotations

from pathlib import Path

import pytest

from extgen.cli import main
from extgen.generator.generate import generate, validate_config

API_1 = ("SetConfig", "PluginConfigParams", "KEY_CONFIG_FILE")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("legacy")
    op = {"name": "Twice", "expression": "x * 2"}
    generate(validate_config({"targets": ["ie-gpu-ext", "ie-vpu-ext"], "ops": [op]}), out)
    return out / "user_ie_extensions"


@pytest.mark.parametrize("device", ["GPU", "MYRIAD"])
def test_the_xml_shows_the_api_2_call(kernels: Path, device: str) -> None:
    folder = {"GPU": "gpu", "MYRIAD": "vpu"}[device]
    text = (kernels / folder / "twice_kernel.xml").read_text()
    path = "/absolute/path/to/twice_kernel.xml"
    assert f'core.set_property("{device}", {{"CONFIG_FILE": "{path}"}})' in text
    assert not any(word in text for word in API_1)


def test_the_vpu_files_say_which_openvino_loads_them(kernels: Path) -> None:
    xml = (kernels / "vpu" / "twice_kernel.xml").read_text()
    assert "Legacy target" in xml and "2022.3 and older" in xml and "extgen run" in xml
    assert "Legacy target" in (kernels / "vpu" / "twice_kernel.cl").read_text()


def test_new_help_calls_the_vpu_target_legacy(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["new", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "The VPU target is legacy" in out and "up to 2022.3" in out
    flag = out.rsplit("--ie-vpu-ext", 1)[1].split("--op-test", 1)[0]  # its line in options
    assert "legacy" in flag and "2022.3" in flag


def test_run_help_calls_the_vpu_device_legacy(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "VPU is legacy" in " ".join(capsys.readouterr().out.split())
