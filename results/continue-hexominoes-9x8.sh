#!/usr/bin/env bash
# Continues the hexomino game on 9x8 (the 35 hexominoes, one common pile,
# from the empty board) on this machine, from its export in this folder,
# and writes the export back as the job goes: every EXPORT_MINUTES (default
# 15) and once more when it stops. That file is what the next machine
# continues from, so commit it as it grows: a sitting never lives only on
# one machine.
#
#   results/continue-hexominoes-9x8.sh [DB]
#
# DB (default h98.db in the current directory) is made from the export the
# first time, and resumed after. THREADS (default: all cores) is passed to
# `golomb run`; PORT (default 7198) is the loopback port it serves on, which
# `golomb status JOB --coordinator 127.0.0.1:PORT` reads (JOB is printed
# below; the `closest:` line names the opening nearest a proof). Stop it with
# Ctrl-C: it writes a last export, then stops the run. golomb must be on PATH.
set -euo pipefail
command -v golomb > /dev/null || { echo "golomb is not on PATH" >&2; exit 1; }
here="$(cd "$(dirname "$0")" && pwd)"
export_file="${EXPORT:-$here/hexominoes-9x8.export.json.gz}"
db="${1:-h98.db}"
port="${PORT:-7198}"
every=$(( ${EXPORT_MINUTES:-15} * 60 ))
log="$db.log"
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")

if [ -f "$db" ]; then
  golomb run --board 9x8 --pieces hexominoes --goal solve --db "$db" --listen "127.0.0.1:$port" \
    --quiet "${threads[@]}" > "$log" 2>&1 &
else
  golomb run --resume "$export_file" --db "$db" --listen "127.0.0.1:$port" --quiet "${threads[@]}" > "$log" 2>&1 &
fi
run=$!

# The job's number, from the run's first lines ("resuming job N" or "... into new job N").
job=""
while [ -z "$job" ] && kill -0 "$run" 2> /dev/null; do
  sleep 1
  job=$(grep -oE '(resuming job|into new job) [0-9]+' "$log" | grep -oE '[0-9]+$' | head -1 || true)
done
[ -n "$job" ] || { echo "the run stopped before it named its job:" >&2; cat "$log" >&2; exit 1; }
echo "job $job of $db, served on 127.0.0.1:$port; its log: $log"

# The export goes to a file beside it first, so a stop in the middle never leaves half a file.
save() {
  local partial="$export_file.partial.json.gz"
  if golomb export "$job" "$partial" --coordinator "127.0.0.1:$port" > /dev/null; then
    mv "$partial" "$export_file"
    echo "$(date -u +%H:%M:%S) exported to $export_file"
    golomb status "$job" --coordinator "127.0.0.1:$port" | grep -E '^(children|progress|search|closest):' || true
  else
    echo "$(date -u +%H:%M:%S) the export failed; the last one stays" >&2
    rm -f "$partial"
  fi
}

# Once the run has stopped (the job decided, or Ctrl-C reached it first): a
# coordinator on the file writes the last export.
save_from_file() {
  golomb serve --db "$db" --listen "127.0.0.1:$port" > "$db.serve.log" 2>&1 &
  local serve=$!
  sleep 3
  save
  kill -INT "$serve" 2> /dev/null || true
  wait "$serve" || true
}

stop() {
  trap - INT TERM
  if kill -0 "$run" 2> /dev/null; then
    save
    kill -INT "$run" 2> /dev/null || true
    wait "$run" || true
  else
    wait "$run" || true
    save_from_file
  fi
  exit 0
}
trap stop INT TERM

while kill -0 "$run" 2> /dev/null; do
  # Short sleeps, so that Ctrl-C is answered at once.
  for _ in $(seq "$every"); do
    kill -0 "$run" 2> /dev/null || break
    sleep 1
  done
  kill -0 "$run" 2> /dev/null && save
done
trap - INT TERM
wait "$run" || true
echo "the run ended:"
tail -5 "$log"
save_from_file
