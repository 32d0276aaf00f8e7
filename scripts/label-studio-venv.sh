#!/bin/sh
# Installs Label Studio from PyPI into its own virtual environment, cached between runs and
# keyed by the version, for tests/api/test_label_studio_real.py (`make label-studio-env`).
# Prints the venv's path on success; exits non-zero with the reason on stderr otherwise.
set -e
VERSION="${LABEL_STUDIO_VERSION:-1.23.2}"
CACHE="${FANSHOT_CACHE:-$HOME/.cache/fanshot}"
VENV="$CACHE/label-studio-venv-$VERSION"
PYTHON="${PYTHON:-python3}"
# one install at a time (two test runs at once would build the same folder)
if [ -z "$FANSHOT_LS_LOCKED" ] && command -v flock >/dev/null; then
  mkdir -p "$CACHE"
  FANSHOT_LS_LOCKED=1 exec flock "$CACHE/label-studio-venv.lock" sh "$0" "$@"
fi
# label-studio asks for sentry-sdk>=2.16; sentry-sdk 3 refuses the options it starts with
# ("Unknown option 'send_default_pii'"): a venv of another recipe is built again
RECIPE="label-studio==$VERSION sentry-sdk<3"
if [ -x "$VENV/bin/label-studio" ] && [ "$(cat "$VENV/.installed" 2>/dev/null)" = "$RECIPE" ]; then
  echo "$VENV"
  exit 0
fi
mkdir -p "$CACHE"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV" >&2
"$VENV/bin/pip" install -q --upgrade pip >&2
"$VENV/bin/pip" install -q "label-studio==$VERSION" "sentry-sdk<3" >&2
echo "$RECIPE" > "$VENV/.installed"
echo "$VENV"
