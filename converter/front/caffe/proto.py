"""The Caffe message classes (the project's caffe.proto, or the user's via --caffe_parser_path)
and reading .prototxt (text) and .caffemodel (binary) files with them; one-line errors."""

from __future__ import annotations

import mmap
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from converter.errors import InputFileError, ModelFormatError, UsageError
from converter.front.proto import load_proto
from converter.front.proto.strings import check_strings

__all__ = ["DEFAULT_PROTO", "net_class", "read_caffemodel", "read_prototxt"]

DEFAULT_PROTO = Path(__file__).with_name("caffe.proto")
_NO_FIELD = re.compile(r'Message type "([\w.]+)" has no field named "(\w+)"')
_PARAM = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*_param")  # a layer's parameter message field


def _proto_file(parser_path: Path | None) -> Path:
    if parser_path is None:
        return DEFAULT_PROTO
    path = Path(parser_path)
    if path.is_dir():
        path = path / "caffe.proto"
    if not path.is_file():
        msg = (f"--caffe_parser_path {parser_path}: no caffe.proto there "
               "(give the .proto file or its folder)")
        raise UsageError(msg)
    return path


@lru_cache(maxsize=8)
def _classes(path: Path, mtime: float) -> dict[str, type]:
    return load_proto(path)


def read_mean_file(path: Path, parser_path: Path | None = None) -> Any:
    """--mean_file: a BlobProto .binaryproto as a (C, H, W) float32 image."""
    from converter.front.caffe.attrs import blob_array

    proto = _proto_file(parser_path).resolve()
    classes = _classes(proto, proto.stat().st_mtime)
    blob = next(c for n, c in classes.items() if n.split(".")[-1] == "BlobProto")()
    try:
        blob.ParseFromString(Path(path).read_bytes())
        image = blob_array(blob)
    except (OSError, DecodeError, ModelFormatError) as err:
        msg = f"--mean_file {path}: not a Caffe mean .binaryproto ({err})"
        raise InputFileError(msg) from None
    if image.ndim < 3 or image.ndim == 4 and image.shape[0] != 1:
        msg = f"--mean_file {path}: holds shape {list(image.shape)}, not one C x H x W image"
        raise InputFileError(msg)
    return image.reshape(image.shape[-3:])


def net_class(parser_path: Path | None = None) -> type:
    """NetParameter of the caffe.proto in use (any package: caffe, mo_caffe, ...)."""
    path = _proto_file(parser_path).resolve()
    classes = _classes(path, path.stat().st_mtime)
    for name, cls in classes.items():
        if name == "NetParameter" or name.endswith(".NetParameter"):
            return cls
    msg = f"{path}: defines no NetParameter message; is it Caffe's caffe.proto?"
    raise UsageError(msg)


def read_prototxt(path: Path, cls: type, custom_parser: bool = False) -> Any:
    """Parse a .prototxt; a syntax error names the file and line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        msg = f"{path}: no such .prototxt (pass the network description with --input_proto)"
        raise InputFileError(msg) from None
    except OSError as err:
        msg = f"{path}: cannot read the .prototxt ({err.strerror})"
        raise InputFileError(msg) from None
    except UnicodeDecodeError:
        msg = f"{path}: not a text .prototxt (binary data; is it the .caffemodel?)"
        raise ModelFormatError(msg) from None
    net = cls()
    try:
        text_format.Merge(text, net)
    except text_format.ParseError as err:
        line = err.GetLine() if err.GetLine() is not None else "?"
        unknown = _NO_FIELD.search(str(err))
        if unknown and _PARAM.fullmatch(unknown.group(2)):
            hint = ("pass the caffe.proto of the Caffe that defines it with --caffe_parser_path"
                    if not custom_parser
                    else "the --caffe_parser_path proto does not define it either")
            msg = (f"{path}:{line}: layer parameter '{unknown.group(2)}' is unknown to the "
                   f"caffe.proto in use; {hint}")
        else:
            msg = f"{path}:{line}: not a valid .prototxt: {_problem(str(err))}"
        raise ModelFormatError(msg) from None
    return net


def _problem(error: str) -> str:
    """What protobuf's text parser found wrong, in words of the grammar: its message quotes
    the file (a field name, a value, the rest of the line), which an error must not show."""
    if found := _NO_FIELD.search(error):
        return f"a field name message {found.group(1)} does not have"
    if found := re.search(r'Enum type "([\w.]+)" has no value', error):
        return f"not a value of {found.group(1)}"
    if found := re.search(r"Couldn't parse (integer|float|double|boolean|string|bool)", error):
        return f"not a valid {found.group(1)}"
    if found := re.search(r'Message type "([\w.]+)" should not have multiple "(\w+)"', error):
        return f"field {found.group(2)} of {found.group(1)} is given twice"
    if found := re.search(r'Expected "([{}<>:\[\],;])"', error):
        return f"expected '{found.group(1)}' here"
    if "Expected identifier" in error:
        return "expected a field name here"
    return "a syntax error (check the quotes and braces)"


def read_caffemodel(path: Path, cls: type) -> Any:
    """Parse a binary .caffemodel (mapped, not copied into a bytes object first)."""
    path = Path(path)
    if not path.is_file():
        msg = f"{path}: no such model file"
        raise InputFileError(msg)
    net = cls()
    try:
        with path.open("rb") as f:
            size = path.stat().st_size
            if size == 0:
                raise DecodeError("the file is empty")
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                view = memoryview(data)
                try:
                    net.ParseFromString(view)
                finally:
                    view.release()
    except OSError as err:
        msg = f"{path}: cannot read the model ({err.strerror})"
        raise InputFileError(msg) from None
    except (DecodeError, RuntimeError, ValueError) as err:
        msg = f"{path}: not a valid .caffemodel (truncated or corrupt protobuf: {err})"
        raise ModelFormatError(msg) from None
    if not len(net.layer) and not len(net.layers):
        msg = (f"{path}: not a valid .caffemodel "
               "(it holds no layers; truncated or not a Caffe model?)")
        raise ModelFormatError(msg)
    check_strings(net, path)
    return net
