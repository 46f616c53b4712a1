#!/bin/sh
# Prints the path of a headless-capable Chromium, installing Debian's
# `chromium` package first when none is on the PATH (the browser test of the
# status page calls this). Needs root (or sudo) and a Debian or Ubuntu
# package mirror; prints why on stderr and exits non-zero otherwise.
set -eu

find_browser() {
    for name in chromium chromium-browser google-chrome; do
        if command -v "$name" >/dev/null 2>&1; then
            command -v "$name"
            return 0
        fi
    done
    return 1
}

if find_browser; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-chromium: no chromium on the PATH and no apt-get to install it" >&2
    exit 1
fi

as_root=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        as_root="sudo -n"
    else
        echo "ensure-chromium: no chromium on the PATH, and installing it needs root (run: apt-get install chromium)" >&2
        exit 1
    fi
fi

echo "ensure-chromium: installing Debian's chromium package (once; about 100 MB)" >&2
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing or stale in a fresh container.
$as_root apt-get install -y --no-install-recommends chromium >&2 \
    || { $as_root apt-get update >&2 && $as_root apt-get install -y --no-install-recommends chromium >&2; }
find_browser
