#!/usr/bin/env python3
"""How good are the coordinator's time estimates? Runs a set of jobs on a real
`golomb serve` with real workers, reads `golomb status --json` every half
second, and reports, at 10%, 50% and 90% of each job's run, the time left
the status estimated against the time that was really left (the factor
between them, `none` where no estimate was given).

    tests/estimates.py [--workers N] [--threads T] [JOB ...]

A JOB is the `golomb submit` arguments in one string; the default set is a
small and a medium classify, two solves and a tiling count. Uses target/release binaries
(cargo build --release), or GOLOMB_BIN and GOLOMB_WORKER_BIN. The target
(issue 28): within a factor 1.5 from half-way on, or no estimate.
"""
import argparse, json, os, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLOMB = os.environ.get("GOLOMB_BIN", os.path.join(ROOT, "target/release/golomb"))
WORKER = os.environ.get("GOLOMB_WORKER_BIN", os.path.join(ROOT, "target/release/golomb-worker"))
JOBS = [
    "--board 7x6 --goal classify --split-depth 1",
    "--board 7x7 --goal classify --split-depth 1",
    "--board 8x5 --goal solve --split-depth 2",
    "--board 7x7 --goal solve --split-depth 2",
    "--board 6x10 --goal count --split-depth 3",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def golomb(url, *args):
    out = subprocess.run([GOLOMB, *args, "--coordinator", url, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def run_job(url, spec):
    job = golomb(url, "submit", *spec.split())["job"]
    start = time.monotonic()
    samples = []
    while True:
        status = golomb(url, "status", str(job))
        t = time.monotonic() - start
        if status["state"] in ("done", "failed", "cancelled"):
            return t, samples, status
        samples.append((t, status.get("eta_seconds")))
        time.sleep(0.5)


def factor(estimate, actual):
    if estimate is None or estimate < 0:
        return "none"
    if actual <= 0 or estimate <= 0:
        return "-"
    f = estimate / actual
    return f"{f:.2f}x" if f >= 1 else f"1/{1 / f:.2f}x"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("jobs", nargs="*", default=JOBS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        serve = subprocess.Popen([GOLOMB, "serve", "--db", os.path.join(tmp, "g.db"), "--listen", f"127.0.0.1:{port}"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        workers = [subprocess.Popen([WORKER, "--coordinator", url, "--threads", str(args.threads), "--name", f"e{i}",
                                     "--tt-mb", "64"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for i in range(args.workers)]
        try:
            print(f"{'job':48} {'run':>7}  {'at 10%':>9} {'at 50%':>9} {'at 90%':>9}  (estimated / really left)")
            for spec in args.jobs:
                total, samples, status = run_job(url, spec)
                cells = []
                for share in (0.1, 0.5, 0.9):
                    at = share * total
                    near = min(samples, key=lambda s: abs(s[0] - at)) if samples else None
                    cells.append(factor(near[1], total - near[0]) if near else "-")
                print(f"{spec:48} {total:6.1f}s  {cells[0]:>9} {cells[1]:>9} {cells[2]:>9}  {status['state']}")
        finally:
            for p in workers + [serve]:
                p.terminate()
            for p in workers + [serve]:
                p.wait()


if __name__ == "__main__":
    sys.exit(main())
