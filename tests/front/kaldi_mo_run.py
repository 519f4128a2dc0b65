"""Run an IR on consecutive frames in the OpenVINO of MO 2023.3's venv, one infer request
(state kept): `python kaldi_mo_run.py model.xml frames.npy out.npy`; frames [T, dim], or
[T, N, dim] for N streams. tests/mo_oracle.py calls it when it records MO's answers, since
today's OpenVINO runs MO's splice layout wrongly."""

import sys

import numpy as np
from openvino.runtime import Core

xml, frames, out = sys.argv[1:4]
compiled = Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
request = compiled.create_infer_request()
x = np.load(frames)
calls = [x[t] if x.ndim == 3 else x[t:t + 1] for t in range(len(x))]
np.save(out, np.stack([request.infer([c])[compiled.output(0)] for c in calls]))
