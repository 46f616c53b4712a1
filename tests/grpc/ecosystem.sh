#!/usr/bin/env bash
# Calls a coordinator's standard gRPC health service and server reflection
# from a client that is not ours: Python's grpcio, installed with pip into
# VENV on first use (grpcio, grpcio-health-checking, grpcio-reflection).
#
#   tests/grpc/ecosystem.sh VENV HOST:PORT TOKEN
#
# Exit 77 when the client cannot be installed (no python3 venv, or no
# package index): the caller reports the check as skipped.
set -euo pipefail
venv=$1
shift
packages=(grpcio==1.76.0 grpcio-health-checking==1.76.0 grpcio-reflection==1.76.0)
if ! "$venv/bin/python" -c 'import grpc, grpc_health, grpc_reflection' 2>/dev/null; then
    python3 -m venv "$venv" >&2 || exit 77
    "$venv/bin/pip" install --quiet --disable-pip-version-check --timeout 15 --retries 1 "${packages[@]}" >&2 || exit 77
fi
exec "$venv/bin/python" "$(dirname "$0")/ecosystem.py" "$@"
