#!/usr/bin/env bash
# Golomb's game (common pile) on every rectangle up to MAX_W x MAX_H for one
# piece set, smallest area first: each solve on one thread, at most LIMIT
# seconds, its proof written gzip and checked by the independent checker
# (`golomb verify`). Writes OUT/PIECES-games.csv in the form of
# results/hexominoes-games.csv (board, value, a winning move, positions,
# CPU seconds, proof verified); a board already in the file is skipped, so
# a stopped run goes on where it stopped. A board that runs past LIMIT is
# recorded "unsolved" with the seconds spent; a bigger limit, or a cluster
# job (`golomb run --board WxH --pieces PIECES --goal solve`), takes it on.
#
#   GOLOMB=target/release/golomb OUT=results LIMIT=600 [TT_MB=256] tests/games.sh pentominoes [MAX_W] [MAX_H]
#
# MAX_W and MAX_H default to 9. Boards are named long side first (9x8, not
# 8x9: the game is the same). Runs at nice 19: measurements beside it keep
# the machine. The proofs go to OUT/proofs-PIECES/BOARD.json.gz, and the
# table is drawn at the end to OUT/PIECES-games.svg (`golomb draw-games`).
set -euo pipefail
pieces="${1:?usage: tests/games.sh PIECES [MAX_W] [MAX_H]}"
max_w="${2:-9}"
max_h="${3:-9}"
limit="${LIMIT:-600}"
golomb="${GOLOMB:-target/release/golomb}"
out="${OUT:-.}"
csv="$out/$pieces-games.csv"
proofs="$out/proofs-$pieces"
mkdir -p "$proofs"
[ -f "$csv" ] || echo "board,value,winning_move,positions,cpu_seconds,proof_verified" > "$csv"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for area in $(seq 1 $((max_w * max_h))); do
  for w in $(seq 1 "$max_w"); do
    for h in $(seq "$w" "$max_h"); do
      [ $((w * h)) -eq "$area" ] || continue
      board="${h}x${w}"
      grep -q "^$board," "$csv" && continue
      proof="$proofs/$board.json.gz"
      started=$(date +%s)
      if ! /usr/bin/time -f "%U" -o "$work/time" nice -n 19 timeout "$limit" "$golomb" solve --board "$board" \
        --pieces "$pieces" --threads 1 --tt-mb "${TT_MB:-256}" --json --proof "$proof" > "$work/out" 2> "$work/err"; then
        rm -f "$proof"
        echo "$board,unsolved (stopped after $(( $(date +%s) - started )) s),,,," >> "$csv"
        echo "$board: unsolved after $limit s" >&2
        continue
      fi
      row=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
move = d.get("winning_move") or ""
print("{},{},\"{}\",{},{:.2f}".format(sys.argv[2], d["value"], move, d["stats"]["positions"], float(sys.argv[3])))
' "$work/out" "$board" "$(tail -1 "$work/time")")
      if nice -n 19 "$golomb" verify "$proof" > "$work/verify" 2>&1; then verified=yes; else verified=NO; fi
      echo "$row,$verified" | sed 's/,"",/,,/' >> "$csv"
      echo "$board: $row, verified $verified" >&2
    done
  done
done
"$golomb" draw-games "$csv" --pieces "$pieces" --svg "$out/$pieces-games.svg"
