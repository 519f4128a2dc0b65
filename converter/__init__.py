"""The extgen converter: a Model-Optimizer-style pipeline that writes OpenVINO IR v11."""
