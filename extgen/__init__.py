"""extgen: add a custom operation to an OpenVINO deployment and see it run end to end.

    import extgen
    model = extgen.convert_model("model.onnx", input_shape=[1, 3, 224, 224])
    extgen.save_model(model, "ir/model.xml")
"""

from typing import Any

__all__ = ["ExtgenError", "__version__", "convert_model", "save_model"]


def __getattr__(name: str) -> Any:  # read on first use: `import extgen` stays light
    if name == "__version__":
        from converter.version import installed_version

        return installed_version()
    if name in ("convert_model", "save_model"):
        from extgen import api

        return getattr(api, name)
    if name == "ExtgenError":
        from extgen.errors import ExtgenError

        return ExtgenError
    raise AttributeError(name)
