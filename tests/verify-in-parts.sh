#!/usr/bin/env bash
# Checks one big proof in N parts with the independent checker (`golomb
# verify PROOF --part K/N`), one part at a time, and records each part's
# verdict by the SHA-256 of its text in PROOF's `.parts.csv` beside it (`part`,
# `of`, `proof_sha256`, `verdict`, `leaves`, `positions`, `seconds`,
# `threads`, `checked_at`). A part already verified (or failed) for the same
# file and N is skipped, so the script goes on where it stopped, on any
# machine; the proof is verified when all N parts are. Several machines
# share one proof by naming their parts: ONLY="1 5 9" (spaces between).
#
#   tests/verify-in-parts.sh PROOF N [MAX_PARTS]
#
# THREADS (default: all cores) goes to `golomb verify --threads`;
# PARALLEL=P checks P parts at a time (on 16 cores, 4 parts on 4 threads). A part
# the checker refuses is recorded `failed`, its error in PROOF's
# `.parts.log`; a part stopped by a signal, or a run that fails for any
# other reason (no golomb, a bad argument), records nothing and stops.
# golomb and python3 must be on PATH.
set -euo pipefail
for tool in golomb python3; do
  command -v "$tool" > /dev/null || { echo "$tool is not on PATH" >&2; exit 2; }
done
proof="$1"
of="$2"
max="${3:-$of}"
base="${proof%.gz}"
base="${base%.json}"
out="$base.parts.csv"
[ -f "$out" ] || echo "part,of,proof_sha256,verdict,leaves,positions,seconds,threads,checked_at" > "$out"
# The hash of the proof's text, as the checker reports it (after gzip is undone).
sha=$(case "$proof" in *.gz) gzip -dc "$proof" ;; *) cat "$proof" ;; esac | sha256sum | cut -d' ' -f1)
threads="${THREADS:-$(nproc)}"
# Parts of this file and N that already have a verdict.
done_parts=$(awk -F, -v sha="$sha" -v of="$of" '$2 == of && $3 == sha && $4 != "" { print $1 }' "$out")
# Checks one part and appends its verdict; exits 255 (which stops xargs)
# where it records nothing.
check_part() {
  local part="$1" started errors report code verdict fields
  echo "checking part $part/$of of $proof" >&2
  started=$(date +%s)
  errors=$(mktemp)
  # The checker's progress lines go on to stderr, and into $errors for the verdict.
  if report=$(golomb verify "$proof" --part "$part/$of" --threads "$threads" --json 2> >(tee "$errors" >&2)); then
    verdict=verified
    fields=$(printf '%s' "$report" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("{},{},{:.1f},{}".format(r["leaves"], r["positions"], r["seconds"], r["proof_sha256"]))')
    # The checker's hash of the text it read: the file must not have changed.
    [ "${fields##*,}" = "$sha" ] || { echo "$proof changed while it was checked: stopping" >&2; exit 255; }
    fields="${fields%,*}"
  else
    code=$?
    wait 2> /dev/null || true
    [ "$code" -gt 128 ] && { echo "  interrupted ($code): no verdict recorded for part $part" >&2; exit 255; }
    grep -q "is NOT verified" "$errors" || { cat "$errors" >&2; echo "  no verdict recorded" >&2; exit 255; }
    verdict=failed
    fields=",,$(( $(date +%s) - started ))"
    { echo "part $part/$of, sha256:$sha:"; grep -v '^\[' "$errors"; } >> "$base.parts.log"
  fi
  rm -f "$errors"
  # One short line in one write: parallel parts append whole lines.
  echo "$part,$of,$sha,$verdict,$fields,$threads,$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$out"
  echo "  part $part: $verdict ($fields)" >&2
}
export -f check_part
export proof of sha threads out base
# PARALLEL parts at a time (default 1), each on THREADS threads.
todo=$(for part in ${ONLY:-$(seq 1 "$of")}; do grep -qx "$part" <<< "$done_parts" || echo "$part"; done | awk '!seen[$0]++')
status=0
[ -z "$todo" ] || head -n "$max" <<< "$todo" | xargs -n 1 -P "${PARALLEL:-1}" bash -c 'check_part "$1"' _ || status=$?
verified=$(awk -F, -v sha="$sha" -v of="$of" '$2 == of && $3 == sha && $4 == "verified" && $1 >= 1 && $1 <= of && !seen[$1]++ { n++ } END { print n + 0 }' "$out")
echo "$proof: $verified of $of parts verified (sha256:$sha)" >&2
exit "$status"
