"""TensorFlow frontend: frozen GraphDef (.pb / .pbtxt) read with the converter's own protos
(`proto/`), MO-named attribute helpers (`attrs.py`), built-in translators (`ops/`) and
`--transformations_config` sub-graph replacement (`replacement.py`). The NHWC->NCHW layout
change lives in converter.middle.layout."""
