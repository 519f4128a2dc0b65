#!/usr/bin/env bash
# Set up a checkout for one of the README's commands:
#   scripts/setup.sh example   what `make example` needs: extgen and the OpenVINO engine (light)
#   scripts/setup.sh test      what `make test` needs: that and the test oracles (torch,
#                              TensorFlow, transformers, onnxruntime, ...; several GB)
# in three steps:
#   1. .venv with extgen (editable) and the extra packages the job needs;
#   2. a CPU OpenCL driver that works on this host, for the GPU/VPU kernels, and (for the
#      tests) Oclgrind, the kernel debugger: when no OpenCL device can build a probe kernel, or
#      oclgrind is missing, and we are root on Debian/Ubuntu, install them from apt;
#   3. the system tools the job needs: one line per missing tool with the command that
#      installs it.
set -euo pipefail
cd "$(dirname "$0")/.."
job=${1:-test}
case "$job" in
    example) extra=example tools=(c++ cmake opencl) ;;
    test) extra=test tools=(c++ cmake opencl oclgrind) ;;
    *) echo "usage: scripts/setup.sh example|test" >&2; exit 2 ;;
esac

# 1. Python packages
if ! command -v python3 >/dev/null; then
    echo "setup: python3 not found; install Python 3.10 to 3.13 (apt-get install python3-venv)" >&2
    exit 1
fi
if ! python3 -c 'import sys; sys.exit(not (3, 10) <= sys.version_info[:2])'; then
    echo "setup: extgen needs Python 3.10 or newer; python3 is $(python3 -V 2>&1)" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv || {
        echo "setup: cannot create .venv; install the venv module (apt-get install python3-venv)" >&2
        exit 1
    }
fi
fresh() {  # the stamp of an install newer than the project's package files
    [ -f ".venv/.extgen-$1" ] && [ ! pyproject.toml -nt ".venv/.extgen-$1" ] &&
        [ ! setup.py -nt ".venv/.extgen-$1" ]
}
if ! fresh "$extra" && ! fresh test; then  # the test set holds the example's
    what="extgen and the OpenVINO engine"
    [ "$job" = test ] && what="extgen and its test dependencies (several GB on first use)"
    echo "setup: installing $what into .venv (log: .venv/setup.log)"
    # torch (a test oracle) from its CPU-only index, not the CUDA build on PyPI, where that
    # index answers (a machine with a local package mirror may not reach it)
    index=()
    if [ "$job" = test ] && .venv/bin/python -c \
            "import urllib.request as u; u.urlopen('https://download.pytorch.org/whl/cpu/', timeout=5)" \
            >/dev/null 2>&1; then
        index=(--extra-index-url https://download.pytorch.org/whl/cpu/)
    fi
    if ! { .venv/bin/python -m pip install --upgrade pip &&
           .venv/bin/python -m pip install -e ".[$extra]" "${index[@]}"; } >.venv/setup.log 2>&1
    then
        missing=$(sed -n 's/.*No matching distribution found for \([^ ;]*\).*/\1/p' \
                  .venv/setup.log | head -n 1)
        if [ -n "$missing" ]; then
            echo "setup: $missing has no release for $(.venv/bin/python -V) on this machine;" \
                 "README.md ('Python versions') says which Pythons each job runs on" >&2
        else
            tail -n 20 .venv/setup.log >&2
        fi
        echo "setup: pip failed; the whole log is in .venv/setup.log" >&2
        exit 1
    fi
    touch ".venv/.extgen-$extra"
fi
doctor=(.venv/bin/python -m extgen doctor)

# 2. A CPU OpenCL driver, and Oclgrind for the tests
need=()
"${doctor[@]}" opencl >/dev/null 2>&1 || need+=(pocl-opencl-icd)
[ "$job" = test ] && ! command -v oclgrind >/dev/null && need+=(oclgrind)
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${need[*]} (apt-get install ${need[*]})"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
        apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
    }
fi

# 3. Check every system tool the job needs; one line for each that is missing
if ! report=$("${doctor[@]}" "${tools[@]}" 2>&1); then
    echo "$report" | grep -v '^ok' >&2
    echo "setup: install what is missing above, then run the command again" >&2
    exit 1
fi
