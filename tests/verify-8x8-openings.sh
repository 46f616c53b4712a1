#!/usr/bin/env bash
# Checks the 8x8 opening table's proofs with the independent checker
# (`golomb verify`), one proof file at a time, and records each verdict in
# pentominoes-8x8-verified.csv: the opening, its proof file's SHA-256 (the
# one in pentominoes-8x8-openings.csv), `verified` or `failed` or
# `timeout`, the positions the checker re-solved and examined, and its
# seconds. A file already verified (or failed) with the same hash is
# skipped, so the script goes on where it stopped, on any machine; a file
# whose proof changed (a tree arrived: `golomb prove`) is checked again.
#
#   tests/verify-8x8-openings.sh [MAX_FILES]
#
# It ends with where the checking stands: how many of the table's current
# proof files (by SHA-256; a verdict on an older proof of the same opening
# does not count) are verified, failed, or left (MAX_FILES 0 prints only
# that).
#
# VERIFY_PARALLEL=P checks P files at a time, each on VERIFY_THREADS
# threads (default: all cores); on 16 cores, 4 files on 4 threads each.
# VERIFY_TIMEOUT (seconds, default 1800) gives up on one file: a proof that
# is a single leaf as big as a whole opening takes the checker hours; its
# tree, once `golomb prove` brought it, takes minutes. The cheapest go
# first: files whose shallowest leaf lies deepest (a losing opening's tree
# re-solves positions four pieces deep, about 20 s for a whole file; a
# winning opening's, three deep, 2 to 4 minutes on 2 cores; a single leaf is a whole
# opening), then the smaller; a file that timed out before goes after every
# file not yet tried. VERIFY_FIRST (openings in the notation, separated by
# spaces) puts those openings before all others. golomb must be on PATH.
set -euo pipefail
# golomb is looked up on PATH after the cd below: give PATH an absolute directory.
command -v golomb > /dev/null || { echo "golomb is not on PATH" >&2; exit 1; }
cd "$(dirname "$0")/../results"
command -v golomb > /dev/null || { echo "golomb is not on PATH from $(pwd) (a relative PATH entry?)" >&2; exit 1; }
max="${1:-1000}"
timeout_s="${VERIFY_TIMEOUT:-1800}"
table=pentominoes-8x8-openings.csv
out=pentominoes-8x8-verified.csv
[ -f "$out" ] || echo "opening,proof_sha256,verdict,leaves,positions,seconds,checked_at" > "$out"

# Decided openings with their proof file and hash, in the order above
# (`verify_table.py todo`).
todo=$(python3 ../tests/verify_table.py todo "$table" "$out")
# The checker's JSON report as `leaves,positions,seconds`.
summary='
import json, sys
try:
    r = json.load(sys.stdin)
    print("{},{},{:.1f}".format(r["leaves"], r["positions"], r["seconds"]))
except Exception:
    print(",,")
'
# Checks one file and appends its verdict; exits 255 (which stops xargs)
# when the check was stopped by a signal.
check_one() {
  local opening="$1" path="$2" sha report code verdict fields started
  # The hash of the file as checked (the table's may be older than the file).
  sha=$(case "$path" in *.gz) gzip -dc "$path" ;; *) cat "$path" ;; esac | sha256sum | cut -d" " -f1)
  echo "checking $opening ($path)" >&2
  started=$(date +%s)
  if report=$(timeout "$timeout_s" golomb verify "$path" --json ${threads:+--threads "$threads"} 2>/dev/null); then
    verdict=verified
  else
    code=$?
    # Stopped by a signal (the loop itself interrupted): no verdict.
    [ "$code" -gt 128 ] && { echo "  interrupted ($code): no verdict recorded for $opening" >&2; exit 255; }
    if [ "$code" -eq 124 ]; then
      verdict=timeout
    elif printf '%s' "${report:-}" | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin).get("verified") is not False)' 2>/dev/null; then
      # The checker's own report says the proof does not hold.
      verdict=failed
    else
      # No report (golomb missing, a bad file, a crash): that is no verdict on the proof.
      echo "  golomb verify exited $code without a report: no verdict recorded for $opening" >&2
      exit 255
    fi
  fi
  fields=$(printf '%s' "${report:-}" | python3 -c "$summary")
  [ "$verdict" = verified ] || fields=",,$(( $(date +%s) - started ))"
  # One short line in one write: parallel checks append whole lines.
  echo "\"$opening\",$sha,$verdict,$fields,$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$out"
  echo "  $opening: $verdict ($fields)" >&2
}
export -f check_one
export summary out timeout_s threads="${VERIFY_THREADS:-}"
# VERIFY_PARALLEL files at a time (default 1): on a machine of many cores,
# several files on a few threads each keep every core busy better than one
# file on all of them, whose last leaves leave most cores idle.
printf '%s\n' "$todo" | { grep -v '^$' || true; } | head -n "$max" \
  | tr '\t' '\n' | xargs -r -d '\n' -n 3 -P "${VERIFY_PARALLEL:-1}" bash -c 'check_one "$@"' _

# Where the checking stands, by the table's current proof hashes.
python3 ../tests/verify_table.py standing "$table" "$out"
