"""Message classes from .proto text (no protoc): binary and text formats round-trip."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format

from converter.front.proto import ProtoSyntaxError, load_proto

A = """
syntax = "proto2";
package demo;
import "b.proto";
// comment
message Net {
  optional string name = 1;
  repeated Layer layer = 2;
  map<string, demo.Val> attrs = 3;
  optional Mode mode = 4 [default = FAST];
  enum Mode { FAST = 0; SLOW = 1; }
  oneof kind { int32 i = 5; float f = 6; }
  repeated float data = 7 [packed = true];
  /* block
     comment */
  reserved 8, 9;
}
message Layer { optional string type = 1; optional float scale = 2 [default = 1.5];
  optional float decay = 3 [default = .999]; }
"""
B = ('syntax = "proto2";\npackage demo;\n'
     "message Val { optional int64 i = 1; repeated int64 list = 2; }\n")


def test_messages_parse_text_and_binary(tmp_path: Path) -> None:
    (tmp_path / "a.proto").write_text(A)
    (tmp_path / "b.proto").write_text(B)
    pb = load_proto(tmp_path / "a.proto")
    net = pb["demo.Net"]()
    text_format.Merge('name: "x" layer { type: "Conv" } attrs { key: "k" value { i: 3 } } '
                      "mode: SLOW f: 2.5 data: [1, 2]", net)
    again = pb["demo.Net"]()
    again.ParseFromString(net.SerializeToString())
    assert again.layer[0].scale == 1.5 and again.attrs["k"].i == 3
    assert abs(again.layer[0].decay - 0.999) < 1e-6
    assert again.mode == 1 and again.WhichOneof("kind") == "f" and list(again.data) == [1.0, 2.0]


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    bad = 'syntax = "proto2";\nmessage M {\n  optional int32 x = ;\n}\n'
    (tmp_path / "bad.proto").write_text(bad)
    with pytest.raises(ProtoSyntaxError, match=r"bad\.proto:3:"):
        load_proto(tmp_path / "bad.proto")
