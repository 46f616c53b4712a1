#!/usr/bin/env bash
# Refreshes the 8x8 opening table from a running (or finished) classify job:
# its export (which `golomb run --resume` continues anywhere), the table as
# CSV and JSON, the picture, and a proof file per decided opening.
#
#   tests/update-8x8-openings.sh [COORDINATOR [JOB]]
#
# The run itself: golomb run --board 8x8 --goal classify --db c8.db --listen 127.0.0.1:50990
# (continue it from the committed export on any machine:
#  golomb run --resume results/pentominoes-8x8-classify.export.json.gz --db c8.db --listen 127.0.0.1:50990
#  and, once it runs, `golomb prove 1 --coordinator http://127.0.0.1:50990`: the export
#  keeps trees, not the requests for them, so the units still without one are asked for again)
set -euo pipefail
cd "$(dirname "$0")/../results"
coordinator="${1:-http://127.0.0.1:50990}"
job="${2:-1}"
golomb export "$job" pentominoes-8x8-classify.export.json.gz --coordinator "$coordinator"
golomb openings pentominoes-8x8-classify.export.json.gz --proofs proofs-8x8 --csv > pentominoes-8x8-openings.csv
golomb openings pentominoes-8x8-classify.export.json.gz --json > pentominoes-8x8-openings.json
golomb openings pentominoes-8x8-classify.export.json.gz --svg pentominoes-8x8-openings.svg > pentominoes-8x8-openings.txt
