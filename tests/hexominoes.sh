#!/usr/bin/env bash
# The hexomino game (common pile, Golomb's rules) on every rectangle up to 8x8, smallest first.
# Each solve: 1 thread, nice 19, at most LIMIT seconds; its proof checked by golomb verify.
# Usage: GOLOMB=target/release/golomb OUT=some/dir LIMIT=600 tests/hexominoes.sh  (writes OUT/hexo.tsv and the proofs)
LIMIT=${LIMIT:-600}
G=${GOLOMB:-target/release/golomb}
out=${OUT:-.}/hexo.tsv
echo -e "board\tvalue\tfirst_move\tpositions\tseconds\tuser_s\tverified\tverify_s" > $out
for area in $(seq 1 64); do
 for w in 1 2 3 4 5 6 7 8; do for h in $(seq $w 8); do
  [ $((w*h)) -eq $area ] || continue
  b=${h}x${w}
  start=$(date +%s.%N)
  /usr/bin/time -f "%U" -o /tmp/hexo-time nice -n 19 timeout $LIMIT $G solve --board $b --pieces hexominoes --threads 1 --tt-mb 256 --json --proof ${OUT:-.}/hexo-$b.json > /tmp/hexo-$b.out 2>/tmp/hexo-$b.err
  rc=$?
  if [ $rc -ne 0 ]; then echo -e "$b\tunsolved (stopped after ${LIMIT} s)\t\t\t\t\t\t" >> $out; continue; fi
  value=$(python3 -c "import json;d=json.load(open('/tmp/hexo-$b.out'));print(d['value'],d.get('winning_move') or '-',d['stats']['positions'],round(d['seconds'],2),sep='\t')")
  user=$(tail -1 /tmp/hexo-time)
  vs=$(date +%s.%N)
  if nice -n 19 $G verify ${OUT:-.}/hexo-$b.json > /tmp/hexo-$b.verify 2>&1; then ok=yes; else ok=NO; fi
  ve=$(date +%s.%N)
  echo -e "$b\t$value\t$user\t$ok\t$(python3 -c "print(round($ve-$vs,2))")" >> $out
 done; done
done
echo finished >> $out
