"""The MXNet front end: symbol JSON and .params reading (no MXNet needed), MO-style attribute
access (`attrs.get_mxnet_layer_attrs`), Custom-op extractors (`custom`) and the built-in
translators (`ops/`)."""
