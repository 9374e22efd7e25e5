#!/usr/bin/env bash
# The checks CI runs before the tests: ruff (lint and format) and the import contracts in pyproject.toml.
# lint-imports reads a package's folder, and the editable install maps meeplab.sim to sim/ elsewhere, so the
# contracts are checked on the installed layout: a wheel-style copy (pip install --target) in a temporary folder.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MEEPLAB_VENV:-$root/.venv}/bin"
cd "$root"
"$bin/ruff" check --quiet .
"$bin/ruff" format --check --quiet .
# Built from a copy of the sources git knows (tracked and untracked-not-ignored), so that a stale build/ folder of
# the checkout cannot add modules that no longer exist.
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/src" "$stage/site"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -xf - -C "$stage/src"
"$bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation \
    --target "$stage/site" "$stage/src" 2> >(grep -v "^WARNING: Location" >&2)
cd "$stage/site" && PYTHONPATH="$stage/site" "$bin/lint-imports" --no-cache "$root/pyproject.toml"
