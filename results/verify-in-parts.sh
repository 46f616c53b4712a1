#!/usr/bin/env bash
# Checks one big proof in N parts with the independent checker (`golomb
# verify PROOF --part K/N`), one part at a time, and records each part's
# verdict by the file's SHA-256 in PROOF's `.parts.csv` beside it (`part`,
# `of`, `proof_sha256`, `verdict`, `leaves`, `positions`, `seconds`,
# `threads`, `checked_at`). A part already verified (or failed) for the same
# file and N is skipped, so the script goes on where it stopped, on any
# machine; the proof is verified when all N parts are. Several machines
# share one proof by naming their parts: ONLY="1 5 9" (spaces between).
#
#   results/verify-in-parts.sh PROOF N [MAX_PARTS]
#
# THREADS (default: all cores) goes to `golomb verify --threads`. A part
# stopped by a signal records nothing. golomb must be on PATH.
set -euo pipefail
proof="$1"
of="$2"
max="${3:-$of}"
out="${proof%.json}.parts.csv"
[ -f "$out" ] || echo "part,of,proof_sha256,verdict,leaves,positions,seconds,threads,checked_at" > "$out"
sha=$(sha256sum "$proof" | cut -d' ' -f1)
threads="${THREADS:-$(nproc)}"
# Parts of this file and N that already have a verdict.
done_parts=$(awk -F, -v sha="$sha" -v of="$of" '$2 == of && $3 == sha && $4 != "" { print $1 }' "$out")
count=0
for part in ${ONLY:-$(seq 1 "$of")}; do
  [ "$count" -lt "$max" ] || break
  grep -qx "$part" <<< "$done_parts" && continue
  count=$((count + 1))
  echo "checking part $part/$of of $proof" >&2
  started=$(date +%s)
  if report=$(golomb verify "$proof" --part "$part/$of" --threads "$threads" --json); then
    verdict=verified
    fields=$(printf '%s' "$report" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("{},{},{:.1f}".format(r["leaves"], r["positions"], r["seconds"]))')
  else
    code=$?
    [ "$code" -gt 128 ] && { echo "  interrupted ($code): no verdict recorded" >&2; exit "$code"; }
    verdict=failed
    fields=",,$(( $(date +%s) - started ))"
  fi
  echo "$part,$of,$sha,$verdict,$fields,$threads,$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$out"
  echo "  $verdict ($fields)" >&2
done
verified=$(awk -F, -v sha="$sha" -v of="$of" '$2 == of && $3 == sha && $4 == "verified" { n++ } END { print n + 0 }' "$out")
echo "$proof: $verified of $of parts verified (sha256:$sha)" >&2
