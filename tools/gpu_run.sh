#!/usr/bin/env bash
# A GPU run, ready to go: the CUDA tests, the book's trainer (quick, full) and TRL's on one CUDA machine, about
# 8 minutes, its numbers written into grpo_nb/data/gpu_run.json (tools/gpu_run.py says what and how).
#   tools/gpu_run.sh                                                   # the GPU run
#   tools/gpu_run.sh --device cpu --dry-run --out /tmp/gpu_run.json    # every step at its smallest, on the CPU
# Python: $PYTHON, else the checkout's .venv, else python3. Nothing is installed (torch stays as it is).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-$root/.venv/bin/python}"
[[ -x "$python" ]] || python="$(command -v python3)"
exec "$python" "$root/tools/gpu_run.py" "$@"
