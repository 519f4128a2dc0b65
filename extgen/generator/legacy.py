"""The original extgen's silent-mode JSON (mo_caffe_extractor, mo_tf_extractor, mo_mxnet_extractor,
mo_op, ie_op) mapped onto GeneratorConfig, without its defects: MXNet works, CPU and GPU can be
asked together (ie_op.plugin may be a list), and parameter defaults are kept."""

from __future__ import annotations

from typing import Any

from extgen.errors import ConfigError

__all__ = ["LEGACY_KEYS", "convert_legacy"]

LEGACY_KEYS = ("mo_caffe_extractor", "mo_tf_extractor", "mo_mxnet_extractor", "mo_op", "ie_op")
_TF_TYPES = {"i": "int", "f": "float", "b": "bool", "s": "string", "list.i": "int_list",
             "list.f": "float_list", "padding": "string", "type": "string"}
_IE_TYPES = {"int": "int", "float": "float", "bool": "bool", "string": "string",
             "listint": "int_list", "listfloat": "float_list"}
_PLUGINS = {"cpu": "ie-cpu-ext", "cldnn": "ie-gpu-ext", "gpu": "ie-gpu-ext", "vpu": "ie-vpu-ext",
            "myriad": "ie-vpu-ext"}


def _type_of(default: Any) -> str:
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, list):
        return "int_list" if all(isinstance(v, int) for v in default) else "float_list"
    if isinstance(default, str):
        return "string"
    return "float"


def _typed_default(entry: dict[str, Any]) -> None:
    """The original extgen wrote defaults as strings ("default": "1.0" with "type": "float");
    read them as the attribute's type."""
    from extgen.generator.interactive import parse_default

    default, kind = entry.get("default"), entry["type"]
    if not isinstance(default, str) or kind == "string":
        return
    try:
        entry["default"] = parse_default(default, kind) if default.strip() else None
    except ValueError as err:
        raise _fail(f"param {entry['name']}.default", f"a {kind} ({err})", default) from None


def _fail(where: str, what: str, value: Any) -> ConfigError:
    shown = repr(value) if len(repr(value)) < 60 else type(value).__name__
    return ConfigError(f"{where}: must be {what}, not {shown}")


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise _fail(key, "an object", value)
    return value


def _items(section: dict[str, Any], key: str, where: str, kind: type) -> list[Any]:
    """section[key], a list of kind (dict: each with string fields old_name/new_name/name/type)."""
    value = section.get(key) or []
    if not isinstance(value, list):
        raise _fail(f"{where}.{key}", "a list", value)
    for i, item in enumerate(value):
        if not isinstance(item, kind):
            raise _fail(f"{where}.{key}.{i}", "an object" if kind is dict else "a string", item)
        for field in ("old_name", "new_name", "name", "type") if kind is dict else ():
            if field in item and not isinstance(item[field], str | None):
                raise _fail(f"{where}.{key}.{i}.{field}", "a string", item[field])
    return value


def _required(p: dict[str, Any], field: str, where: str) -> str:
    if not p.get(field):
        raise _fail(f"{where}.{field}", "a non-empty string", p.get(field))
    return p[field]


def _merge(attrs: dict[str, dict], name: str, **fields: Any) -> None:
    entry = attrs.setdefault(name, {"name": name})
    entry.update({k: v for k, v in fields.items() if v is not None and k not in entry})


def convert_legacy(data: dict[str, Any]) -> dict[str, Any]:
    """The GeneratorConfig data for the original extgen's keys; ConfigError for a wrong shape."""
    unknown = sorted(set(data) - set(LEGACY_KEYS))
    if unknown:
        known = ", ".join(LEGACY_KEYS)
        msg = f"{unknown[0]!r}: not a key of the original extgen config (known: {known})"
        raise ConfigError(msg)
    caffe, tf, mx, mo_op, ie = (_section(data, k) for k in LEGACY_KEYS)
    name = next((s.get("op") for s in (mo_op, ie, caffe, tf, mx) if s.get("op")), None)
    if not name:
        msg = "op: the original config names no op (set mo_op.op or an extractor's op)"
        raise ConfigError(msg)
    attrs: dict[str, dict] = {}
    for key, section in (("mo_caffe_extractor", caffe), ("mo_mxnet_extractor", mx)):
        for i, p in enumerate(_items(section, "params", key, dict)):
            old = _required(p, "old_name", f"{key}.params.{i}")
            _merge(attrs, p.get("new_name") or old, framework_name=old, default=p.get("default"))
    for i, p in enumerate(_items(tf, "params", "mo_tf_extractor", dict)):
        old = _required(p, "old_name", f"mo_tf_extractor.params.{i}")
        _merge(attrs, p.get("new_name") or old, framework_name=old,
               type=_TF_TYPES.get(p.get("type") or ""), tf_type=p.get("type"))
    for i, p in enumerate(_items(ie, "params", "ie_op", dict)):
        _merge(attrs, _required(p, "name", f"ie_op.params.{i}"),
               type=_IE_TYPES.get(p.get("type") or ""), default=p.get("default"))
    for a in _items(mo_op, "supported_attrs", "mo_op", str):
        _merge(attrs, a)
    for a in _items(mo_op, "internal_attrs", "mo_op", str):
        _merge(attrs, a, in_ir=False)
    for entry in attrs.values():
        entry.setdefault("type", _type_of(entry.get("default")))
        _typed_default(entry)
        if entry.get("framework_name") == entry["name"]:
            entry.pop("framework_name")
    mo_targets = (("mo_caffe_extractor", "mo-caffe-ext"), ("mo_tf_extractor", "mo-tf-ext"),
                  ("mo_mxnet_extractor", "mo-mxnet-ext"), ("mo_op", "mo-op"))
    targets = [t for key, t in mo_targets if key in data]
    plugins = ie.get("plugin") or []
    for plugin in [plugins] if isinstance(plugins, str) else _items(ie, "plugin", "ie_op", str):
        if plugin.lower() not in _PLUGINS:
            msg = f"ie_op.plugin: {plugin!r} is not one of cpu, cldnn (gpu), vpu"
            raise ConfigError(msg)
        targets.append(_PLUGINS[plugin.lower()])
    sections = (("caffe", caffe), ("tf", tf), ("mxnet", mx))
    fw_types = {fw: s["op"] for fw, s in sections if s.get("op")}
    op = {
        "name": name,
        "framework_types": {k: v for k, v in fw_types.items() if v != name},
        "attributes": list(attrs.values()),
        "shape": {"kind": "custom" if mo_op.get("change_shape") else "same_as_input"},
        "caffe": {k: v for k, v in {
            "pythonic": caffe.get("pythonic"), "module": caffe.get("module"),
            "param_name": caffe.get("param_name"), "copy_all": caffe.get("allCopy"),
            "flatten": caffe.get("flatten"), "omit_defaults": caffe.get("omitDefault"),
        }.items() if v is not None},
        "tf": {"parse_all": tf["all_copy"]} if "all_copy" in tf else {},
        "mxnet": {"custom": mx["custom"]} if "custom" in mx else {},
    }
    return {"targets": list(dict.fromkeys(targets)), "ops": [op]}
