#!/bin/sh
# The one GPU run of the device work: benchmarks/bench_device.py on the lent accelerator.
#
# Run from the repository root on the GPU machine, with the wheel folder .whl/ beside it
# (pure-Python wheels the machine lacks: array-api-compat; fetch them here with
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp --platform manylinux_2_28_x86_64 -d .whl array-api-compat==1.16.0
# ), e.g. through the device tool as
#   command: sh benchmarks/device_run.sh     carry: [".whl"]     timeout_s: 480
# It prints the machine, the library versions and the benchmark's tables, and writes them to
# $OUT/bench_device.txt when $OUT is set. BUDGET (seconds, default 300) bounds the benchmark.
set -u
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1 SCIPY_ARRAY_API=1
LOG=${OUT:-/tmp}/bench_device.txt
{
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
    python3 -c "import sys, numpy, scipy, sklearn, torch, array_api_compat as c; \
print('python', sys.version.split()[0], '| numpy', numpy.__version__, '| scipy', scipy.__version__, \
'| scikit-learn', sklearn.__version__, '| torch', torch.__version__, '| array-api-compat', c.__version__)"
    nproc
    python3 benchmarks/bench_device.py --budget "${BUDGET:-300}"
} 2>&1 | tee "$LOG"
