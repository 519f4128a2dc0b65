#!/usr/bin/env bash
# Set up a checkout for the README's commands, in three steps:
#   1. .venv with extgen (editable) and its test dependencies, and .venv-mo with the legacy
#      Model Optimizer (the Kaldi oracle);
#   2. a CPU OpenCL driver that works on this host, for the GPU/VPU kernels, and Oclgrind, the
#      kernel debugger: when no OpenCL device can build a probe kernel, or oclgrind is missing,
#      and we are root on Debian/Ubuntu, install them from apt (pocl-opencl-icd, oclgrind);
#   3. the system tools (a C++ compiler and cmake for the CPU target, the OpenCL device,
#      Oclgrind): one line per missing tool with the command that installs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# 1. Python packages
if ! command -v python3 >/dev/null; then
    echo "setup: python3 not found; install Python 3.10 or newer (apt-get install python3-venv)" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv || {
        echo "setup: cannot create .venv; install the venv module (apt-get install python3-venv)" >&2
        exit 1
    }
fi
stamp=.venv/.extgen-installed
TORCH_CPU=https://download.pytorch.org/whl/cpu/
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ]; then
    echo "setup: installing extgen and its test dependencies into .venv (log: .venv/setup.log)"
    # torch (a test oracle) from its CPU-only index, not the CUDA build on PyPI, where that
    # index answers (a machine with a local package mirror may not reach it)
    cpu_index=()
    if .venv/bin/python -c "import urllib.request as u; u.urlopen('$TORCH_CPU', timeout=5)" \
            >/dev/null 2>&1; then
        cpu_index=(--extra-index-url "$TORCH_CPU")
    fi
    if ! { .venv/bin/python -m pip install --upgrade pip &&
           .venv/bin/python -m pip install -e ".[test]" "${cpu_index[@]}"; } >.venv/setup.log 2>&1
    then
        tail -n 20 .venv/setup.log >&2
        echo "setup: pip failed; the whole log is in .venv/setup.log" >&2
        exit 1
    fi
    touch "$stamp"
fi
# The legacy Model Optimizer (openvino-dev 2023.3, numpy<1.24) in a venv of its own: the
# oracle of the Kaldi tests (tests/front/test_kaldi_mo.py), installed once
if [ ! -x .venv-mo/bin/mo ]; then
    echo "setup: installing the legacy MO into .venv-mo, the Kaldi tests' oracle (log: .venv-mo.log)"
    if ! { python3 -m venv .venv-mo &&
           .venv-mo/bin/python -m pip install "numpy<1.24" "openvino-dev==2023.3.0"; } \
           >.venv-mo.log 2>&1; then
        tail -n 20 .venv-mo.log >&2
        echo "setup: pip failed for .venv-mo; the whole log is in .venv-mo.log" >&2
        exit 1
    fi
fi
doctor=(.venv/bin/python -m extgen doctor)

# 2. A CPU OpenCL driver, and Oclgrind
need=()
"${doctor[@]}" opencl >/dev/null 2>&1 || need+=(pocl-opencl-icd)
command -v oclgrind >/dev/null || need+=(oclgrind)
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${need[*]} (apt-get install ${need[*]})"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
        apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
    }
fi

# 3. Check every system tool; one line for each that is missing
if ! report=$("${doctor[@]}" c++ cmake opencl oclgrind 2>&1); then
    echo "$report" | grep -v '^ok' >&2
    echo "setup: install what is missing above, then run the command again" >&2
    exit 1
fi
