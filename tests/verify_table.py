"""The 8x8 opening table's verification state, for tests/verify-8x8-openings.sh.

    python3 verify_table.py todo TABLE VERDICTS    # files to check, in order
    python3 verify_table.py standing TABLE VERDICTS  # counts and cost by current hash

TABLE is pentominoes-8x8-openings.csv, VERDICTS pentominoes-8x8-verified.csv.
A verdict counts for a proof only if it names the proof's current SHA-256:
a verdict on an older file of the same opening does not.
"""
import csv
import json
import os
import sys


def decided(table):
    """The table's decided openings with a proof: (value, opening, path, sha256)."""
    for r in csv.DictReader(open(table)):
        if r["value"] == "unknown" or not r["proof"]:
            continue
        path, sha = r["proof"].split(" sha256:")
        yield r["value"], r["opening"], path, sha


def verdicts(done_file):
    """Every verdict on record: (opening, sha256) -> the set of verdicts."""
    got = {}
    for r in csv.DictReader(open(done_file)):
        got.setdefault((r["opening"], r["proof_sha256"]), set()).add(r["verdict"])
    return got


def verified_rows(done_file):
    """The last `verified` row on record for each (opening, sha256)."""
    return {
        (r["opening"], r["proof_sha256"]): r
        for r in csv.DictReader(open(done_file))
        if r["verdict"] == "verified"
    }


def shallowest_leaf(path):
    """Plies from the empty board to the proof's shallowest leaf: the deeper, the cheaper."""
    tree = json.load(open(path))["tree"]

    def walk(node, depth):
        if node.get("value") == "win" and "move" in node:
            replies = (node.get("after") or {}).get("replies")
            return min(walk(r["after"], depth + 2) for r in replies) if replies else depth + 1
        if node.get("value") == "loss" and node.get("replies"):
            return min(walk(r["after"], depth + 1) for r in node["replies"])
        return depth

    return walk(tree, 1)


def todo(table, done_file):
    """Prints `opening<TAB>path<TAB>sha256` for each proof with no verdict,
    the cheapest to check first: VERIFY_FIRST's openings, then untried
    before timed out, then the deepest shallowest leaf (a single leaf is a
    whole opening), then the smallest file (fewest leaves)."""
    got = verdicts(done_file)
    first = os.environ.get("VERIFY_FIRST", "").split()
    rows = []
    for _, opening, path, sha in decided(table):
        seen = got.get((opening, sha), set())
        if seen - {"timeout"}:
            continue
        rows.append((opening not in first, bool(seen), -shallowest_leaf(path), os.path.getsize(path), opening, path, sha))
    for *_, opening, path, sha in sorted(rows):
        print(f"{opening}\t{path}\t{sha}")


def standing(table, done_file):
    """Prints, for losing and winning openings, how many current proofs are
    verified, failed and left, and what the verified ones cost the checker:
    positions, and seconds of wall time as recorded (under whatever else
    ran beside each check)."""
    got = verdicts(done_file)
    rows = verified_rows(done_file)
    count = {}
    cost = {}
    unmeasured = 0
    for value, opening, _, sha in decided(table):
        seen = got.get((opening, sha), set())
        state = "failed" if "failed" in seen else "verified" if "verified" in seen else "left"
        count[(value, state)] = count.get((value, state), 0) + 1
        if state == "verified":
            r = rows[(opening, sha)]
            if not (r["positions"] and r["seconds"]):
                # Verified, but the checker's report was not read: no figures.
                unmeasured += 1
                continue
            positions, seconds = cost.get(value, (0, 0.0))
            cost[value] = (positions + int(r["positions"]), seconds + float(r["seconds"]))
    for value in ("loss", "win"):
        total = sum(n for (v, _), n in count.items() if v == value)
        positions, seconds = cost.get(value, (0, 0.0))
        print(
            f"{value}: {count.get((value, 'verified'), 0)} of {total} current proofs verified, "
            f"{count.get((value, 'failed'), 0)} failed, {count.get((value, 'left'), 0)} left; "
            f"the verified: {positions / 1e9:,.1f} G checker positions, {seconds / 3600:.1f} h of wall time"
        )
    if unmeasured:
        print(f"{unmeasured} verified proofs have no positions or seconds on record: not in the sums")


if __name__ == "__main__":
    command, table, done_file = sys.argv[1:4]
    {"todo": todo, "standing": standing}[command](table, done_file)
