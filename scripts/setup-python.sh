#!/usr/bin/env bash
# Prepares the Python environments the tests evaluate in (what .ci/run does first):
# - the interpreter `python3` gets the ClassEval task packages (assets/requirements-tasks.txt,
#   pinned to the official evaluator's versions);
# - RealClassEval's third-party imports go into their own venv, .python/realclasseval, which
#   sees the task packages too (--system-site-packages) but does not leak into ClassEval runs:
#   there, model code that imports a package ClassEval does not provide must fail as it did
#   for the official evaluator.
set -euo pipefail
cd "$(dirname "$0")/.."
pip_quiet=(--quiet --disable-pip-version-check)
python3 -m pip install "${pip_quiet[@]}" -r assets/requirements-tasks.txt
if [ ! -x .python/realclasseval/bin/python ]; then
    python3 -m venv --system-site-packages .python/realclasseval
fi
.python/realclasseval/bin/python -m pip install "${pip_quiet[@]}" -r assets/requirements-realclasseval.txt
