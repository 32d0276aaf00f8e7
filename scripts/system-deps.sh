#!/bin/sh
# Debian packages the test suite uses: a headless browser for the page tests,
# a CJK font and tile sets for the synthetic scene generator; PostgreSQL for the games storage tests.
# Installs only what is missing, and only where apt-get can run (root).
set -e
PKGS="chromium chromium-driver fonts-noto-cjk kdegames-mahjongg-data-kf5 librsvg2-bin postgresql"
missing=""
for p in $PKGS; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian packages:$missing"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  echo "warning: missing Debian packages:$missing (run as root to install them)" >&2
fi
