#!/usr/bin/env bash
# One sitting of a long job: continues it on this machine from its export,
# writes the export back as the job goes (every EXPORT_MINUTES, default 15,
# and once more when the sitting stops), and samples its figures every
# SAMPLE_MINUTES (default 10) into a table beside the export. The export is
# what the next machine continues from, so commit it as it grows: a sitting
# never lives only on one machine.
#
#   tests/sitting.sh EXPORT [DB]
#
# EXPORT is a `golomb export` file (.json or .json.gz), for example
# results/hexominoes-9x8.export.json.gz. DB (default: the export's name with
# .db, in the current directory) is made from the export the first time
# (`golomb import`) and served as it stands after. The cluster is the one an
# operator runs: `golomb serve` on the file and one `golomb-worker` (THREADS,
# default all cores) on loopback port PORT (default 7198), which
# `golomb status JOB --coordinator 127.0.0.1:PORT` reads; its leases last
# LEASE_SECONDS (default 300: a coordinator starved by other work on the
# machine for tens of seconds must not let its only worker's leases expire,
# which fails the job after three). The samples go to
# EXPORT's name with .samples.tsv: time, the sitting's minutes, positions,
# nodes stored, nodes decided, the database's bytes (with its WAL) and the
# coordinator's resident memory. Stop it with Ctrl-C (or SIGTERM: a
# sitting started in the background ignores SIGINT): it writes a last
# export, then stops the cluster. golomb, golomb-worker and sqlite3 (for
# the node counts, read beside the coordinator) must be on PATH.
set -euo pipefail
for tool in golomb golomb-worker sqlite3; do
  command -v "$tool" > /dev/null || { echo "$tool is not on PATH" >&2; exit 1; }
done
[ $# -ge 1 ] || { sed -n '2,26p' "$0" >&2; exit 2; }
export_file="$1"
[ -f "$export_file" ] || { echo "no export file $export_file" >&2; exit 1; }
stem="$(basename "$export_file")"
stem="${stem%.gz}"
stem="${stem%.json}"
stem="${stem%.export}"
db="${2:-$stem.db}"
port="${PORT:-7198}"
every=$(( ${EXPORT_MINUTES:-15} * 60 ))
sample_every=$(( ${SAMPLE_MINUTES:-10} * 60 ))
samples="${export_file%.json*}.samples.tsv"
coordinator="127.0.0.1:$port"
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")

if [ ! -f "$db" ]; then
  golomb import "$export_file" --db "$db"
fi
job=$(sqlite3 "$db" "SELECT max(id) FROM jobs")
golomb serve --db "$db" --listen "$coordinator" --lease-seconds "${LEASE_SECONDS:-300}" > "$db.serve.log" 2>&1 &
serve=$!
for _ in $(seq 30); do
  golomb status --coordinator "$coordinator" > /dev/null 2>&1 && break
  sleep 1
done
golomb-worker --coordinator "http://$coordinator" "${threads[@]}" > "$db.worker.log" 2>&1 &
worker=$!
echo "job $job of $db, served on $coordinator; logs: $db.serve.log, $db.worker.log; samples: $samples"
[ -f "$samples" ] || printf 'time\tminutes\tpositions\tnodes\tdecided\tdb_bytes\tserve_rss_kb\n' > "$samples"
started=$(date +%s)

# The export goes to a file beside it first, so a stop in the middle never leaves half a file.
save() {
  local partial="$export_file.partial.json.gz"
  if golomb export "$job" "$partial" --coordinator "$coordinator" > /dev/null; then
    mv "$partial" "$export_file"
    echo "$(date -u +%H:%M:%S) exported to $export_file"
  else
    echo "$(date -u +%H:%M:%S) the export failed; the last one stays" >&2
    rm -f "$partial"
  fi
}

sample() {
  local status positions nodes decided bytes rss
  status=$(golomb status "$job" --coordinator "$coordinator" --json 2> /dev/null) || return 0
  positions=$(grep -oE '"positions": *[0-9]+' <<< "$status" | head -1 | grep -oE '[0-9]+$' || echo "")
  grep -qE '"state": *"done"' <<< "$status" && finished=1
  nodes=$(sqlite3 "$db" "SELECT count(*) FROM nodes WHERE job = $job" 2> /dev/null || echo "")
  # Decided nodes, those that left the tables below decided wins included (schema 19).
  decided=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM nodes WHERE job = $job AND value IS NOT NULL)
    + (SELECT trimmed_proved + trimmed_disproved FROM jobs WHERE id = $job)" 2> /dev/null || echo "")
  bytes=$(( $(stat -c %s "$db") + $(stat -c %s "$db-wal" 2> /dev/null || echo 0) ))
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$serve/status" 2> /dev/null || echo "")
  printf '%s\t%d\t%s\t%s\t%s\t%d\t%s\n' "$(date -u +%FT%TZ)" $(( ($(date +%s) - started) / 60 )) \
    "$positions" "$nodes" "$decided" "$bytes" "$rss" >> "$samples"
}

stop() {
  trap - INT TERM
  kill -INT "$worker" 2> /dev/null || true
  wait "$worker" 2> /dev/null || true
  sample
  save
  kill -INT "$serve" 2> /dev/null || true
  wait "$serve" 2> /dev/null || true
  exit 0
}
trap stop INT TERM

finished=0
sample
since_save=0
since_sample=0
# Short sleeps, so that Ctrl-C is answered at once.
while [ "$finished" = 0 ] && kill -0 "$serve" 2> /dev/null && kill -0 "$worker" 2> /dev/null; do
  sleep 1
  since_save=$(( since_save + 1 ))
  since_sample=$(( since_sample + 1 ))
  if [ "$since_sample" -ge "$sample_every" ]; then sample; since_sample=0; fi
  if [ "$since_save" -ge "$every" ]; then save; since_save=0; fi
done
[ "$finished" = 1 ] && echo "the job is done"
stop
