#!/usr/bin/env bash
# Provisions the project-local Python environments classlab evaluates in; `scripts/test` (the
# README's test command, which .ci/run calls) and the tests that need them run it first.
#
#   .python/classeval      ClassEval's task packages, locked to the official evaluator's versions
#                          (assets/requirements-classeval.txt)
#   .python/realclasseval  ClassEval's plus the RealClassEval slice's third-party imports
#                          (assets/requirements-realclasseval.txt)
#
# Each is a venv of its own, never --system-site-packages: whatever the system interpreter has
# installed (or may not install: PEP 668) changes nothing, and RealClassEval's packages never
# change ClassEval verdicts. classlab uses them by default when they exist (`classlab doctor`
# says which interpreter a dataset gets).
#
# Usage: scripts/setup-python.sh [classeval|realclasseval]...   (default: both)
# The base interpreter is $CLASSLAB_BASE_PYTHON, else python3.11, else python3.
#
# Idempotent and safe to run concurrently: a flock on .python/.lock serializes runs; an
# environment whose stamp (its lock file's SHA-256, the base interpreter's path and version)
# matches is left alone; otherwise it is built aside and moved into place only once `pip
# install` and `pip check` succeeded, so nobody ever sees a half-built environment. Any failure
# exits non-zero with the reason.
set -euo pipefail
umask 022 # the sandbox runs suites as uid 65534 when classlab is root: world-readable trees
cd "$(dirname "$0")/.."
root=$PWD

fail() {
    echo "setup-python: error: $*" >&2
    exit 1
}

envs=("$@")
[ ${#envs[@]} -gt 0 ] || envs=(classeval realclasseval)
for env in "${envs[@]}"; do
    case $env in
    classeval | realclasseval) ;;
    *) fail "unknown environment '$env' (classeval or realclasseval)" ;;
    esac
done

base=${CLASSLAB_BASE_PYTHON:-}
if [ -z "$base" ]; then
    base=$(command -v python3.11 || command -v python3 || true)
fi
[ -n "$base" ] || fail "no python3.11 or python3 on PATH (Python 3.11 is required)"
# The real interpreter behind shims and venvs: a venv's `home` must outlive this shell's PATH.
base=$("$base" -c 'import sys; print(sys.executable if sys.prefix == sys.base_prefix else sys._base_executable)') ||
    fail "cannot run $base"
version=$("$base" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
case $version in
3.11.*) ;;
*) echo "setup-python: warning: $base is Python $version; the locks were made for 3.11" >&2 ;;
esac
"$base" -c 'import venv, ensurepip' 2>/dev/null ||
    fail "$base cannot create venvs (Debian/Ubuntu: apt-get install python3.11-venv)"

mkdir -p .python
chmod 755 .python
exec 9>.python/.lock
flock 9

for env in "${envs[@]}"; do
    lock=assets/requirements-$env.txt
    dir=.python/$env
    stamp="$(sha256sum "$lock" | cut -d' ' -f1) $base $version"
    if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/.provisioned" 2>/dev/null)" = "$stamp" ]; then
        continue
    fi
    echo "setup-python: provisioning $dir from $lock (Python $version)" >&2
    build=.python/.build-$env
    rm -rf "$build"
    "$base" -m venv "$build" || fail "python -m venv $build failed"
    if ! "$build/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-input --no-deps --require-virtualenv -r "$lock"; then
        fail "pip install -r $lock into $dir failed (see above)"
    fi
    if ! "$build/bin/python" -m pip check --disable-pip-version-check; then
        fail "pip check failed in $dir: $lock is not a consistent lock"
    fi
    echo "$stamp" >"$build/.provisioned"
    chmod -R a+rX "$build"
    # Scripts (pip's entry points, activate) name the directory they were made in.
    { grep -rlI -- "$root/$build" "$build/bin" "$build/pyvenv.cfg" || true; } |
        xargs -r sed -i "s|$root/$build|$root/$dir|g"
    rm -rf "$dir"
    mv "$build" "$dir"
    # A venv's interpreter resolves its prefix from where it is, so the move is safe; say so.
    "$dir/bin/python" -c 'import sys; assert sys.prefix == sys.argv[1], sys.prefix' "$root/$dir" ||
        fail "$dir does not run from where it was moved"
    echo "setup-python: $dir ready" >&2
done
