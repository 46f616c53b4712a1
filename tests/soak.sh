#!/usr/bin/env bash
# The soak test of the trust issue: classify jobs on a real coordinator and
# three workers under random coordinator SIGKILLs and pauses and worker
# SIGKILLs and pauses, then every child checked against a local solve, no
# failed unit, no conflict, and `PRAGMA integrity_check` on the file.
#
#   tests/soak.sh [SECONDS [SEED]]
#
# SECONDS is the length of the chaos phase (default: $GOLOMB_SOAK_SECONDS, or
# 120; the whole run takes a minute or two more); SEED replays the choices of an
# earlier run, which it prints first (or set GOLOMB_SOAK_SEED).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOLOMB_SOAK_SECONDS="${1:-${GOLOMB_SOAK_SECONDS:-120}}"
if [ -n "${2:-}" ]; then
    export GOLOMB_SOAK_SEED="$2"
fi
exec cargo test -p golomb-tests --test system -- --ignored --nocapture soak
