"""A user's own template set (`extgen new --template-dir DIR`): a cookiecutter template rendered
once per op, with the op description as its context. cookiecutter owns the layout, hooks and
prompting rules of such a template; extgen only supplies the values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from converter.framework_names import FRAMEWORKS
from extgen.errors import ConfigError, OutputError
from extgen.generator.config import GeneratorConfig, OpConfig

__all__ = ["cookiecutter_context", "render_user_templates"]


def cookiecutter_context(op: OpConfig) -> dict[str, Any]:
    """Values a cookiecutter.json can name: op_name, op_snake, ir_opset, inputs and outputs
    (comma-separated), attributes (name -> {type, default, in_ir}), expression (empty when
    none), onnx_type, tf_type, caffe_type, mxnet_type. cookiecutter reads lists as choices, so
    there are none."""
    return {
        "op_name": op.name,
        "op_snake": op.snake,
        "ir_opset": op.ir_opset,
        "inputs": ",".join(p.name for p in op.inputs),
        "outputs": ",".join(p.name for p in op.outputs),
        "attributes": {a.name: {"type": a.type, "default": a.default, "in_ir": a.in_ir}
                       for a in op.attributes},
        "expression": op.expression or "",
        **{f"{fw}_type": op.framework_type(fw) for fw in FRAMEWORKS},
    }


def render_user_templates(template_dir: Path, config: GeneratorConfig, out_dir: Path,
                          *, force: bool = False) -> list[Path]:
    from cookiecutter.exceptions import CookiecutterException, OutputDirExistsException
    from cookiecutter.main import cookiecutter

    if not (template_dir / "cookiecutter.json").is_file():
        msg = f"--template-dir {template_dir}: not a cookiecutter template (no cookiecutter.json)"
        raise ConfigError(msg)
    made = []
    for op in config.ops:
        try:
            made.append(Path(cookiecutter(
                str(template_dir), no_input=True, extra_context=cookiecutter_context(op),
                output_dir=str(out_dir), overwrite_if_exists=force,
            )))
        except OutputDirExistsException as err:
            msg = f"{err}; nothing was written (use --force to overwrite)"
            raise OutputError(msg) from None
        except (CookiecutterException, ValueError) as err:
            msg = f"--template-dir {template_dir}: {err}"
            raise ConfigError(msg) from None
    return made
