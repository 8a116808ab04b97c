#!/bin/sh
# install-deps.sh PKG...: makes sure the Debian/Ubuntu packages are installed.
# As root: one `apt-get update`, then `apt-get install -y` of the missing ones
# only (a warm machine installs nothing and needs no network). Not root: print
# the one command an admin must run, and fail when anything is missing.
set -eu

missing=""
for pkg in "$@"; do
        status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
        [ "$status" = installed ] || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
        echo "install-deps: not a Debian/Ubuntu system; install:$missing" >&2
        exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
        echo "install-deps: missing packages; run as root:" >&2
        echo "  apt-get update && apt-get install -y$missing" >&2
        exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing$missing" >&2
apt-get update -qq
# shellcheck disable=SC2086 # word splitting of the package list is intended
apt-get install -y -qq --no-install-recommends $missing </dev/null
