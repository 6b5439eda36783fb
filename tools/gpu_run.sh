#!/usr/bin/env bash
# A GPU run, ready to go: the CUDA tests, the book's trainer (quick, full) and TRL's on one CUDA machine, about
# 8 minutes, its numbers written into grpo_nb/data/gpu_run.json (tools/gpu_run.py says what and how); then
# SmolLM2 trained with GRPO on the GPU at three seeds (tools/smollm_runs.py, at most 4 more minutes), written into
# grpo_nb/data/smollm_runs_gpu.json.
#   tools/gpu_run.sh                                                   # the GPU run
#   tools/gpu_run.sh --device cpu --dry-run --out /tmp/gpu_run.json    # every step at its smallest, on the CPU
# A dry run skips the SmolLM2 step (its own smoke check: tools/smollm_runs.py --config tiny --out FILE).
# Python: $PYTHON, else the checkout's .venv, else python3. Nothing is installed (torch stays as it is).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-$root/.venv/bin/python}"
[[ -x "$python" ]] || python="$(command -v python3)"
"$python" "$root/tools/gpu_run.py" "$@"
status=$?
# not after a usage error (2), nor in a dry run or for --help
if [[ "$status" -ne 2 && " $* " != *" --dry-run "* && " $* " != *" --help "* && " $* " != *" -h "* ]]; then
  timeout 240 "$python" "$root/tools/smollm_runs.py" --device cuda --seeds 0-2 \
    --out "$root/grpo_nb/data/smollm_runs_gpu.json" || status=1
fi
exit "$status"
