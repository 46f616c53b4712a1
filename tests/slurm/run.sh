#!/usr/bin/env bash
# deploy/slurm/golomb-workers.sbatch under a real one-node Slurm.
#
#   tests/slurm/run.sh
#
# Starts munged, slurmctld and slurmd by hand with a configuration written into
# a temporary directory (no systemd, no cgroups: proctrack/linuxproc, task/none),
# a coordinator (`golomb serve`) on 127.0.0.1, submits a 6x6 classify job, then
# `sbatch --array=1-2` the real sbatch script, and checks that
#   - both array tasks join the coordinator as slurm-JOB-TASK,
#   - the job ends done with the known values (the first player wins; 8 of the
#     1024 openings win for the player who makes them) and its proof verifies,
#   - the workers leave when their allocation ends: task 2 by `scancel`, task 1
#     by the time limit (Slurm signals the script 60 s before it, the script
#     passes SIGTERM on); each worker log says it stopped, squeue is empty and
#     the coordinator shows no worker online.
# Every daemon it started is stopped at the end.
#
# Needs Debian's slurm-wlm and munge (apt-get install slurm-wlm munge); without
# them it prints a note and exits 0 (with GOLOMB_REQUIRE_SLURM=1, as in CI, it
# fails instead). Runs as root (slurmd launches the job as
# the submitting user). Uses the release binaries (cargo build --release), or
# GOLOMB_BIN / GOLOMB_WORKER_BIN. GOLOMB_SLURM_KEEP=1 keeps the temporary
# directory (logs, configuration); it is kept anyway when a check fails.
# The run takes about three minutes, most of it waiting for the time limit.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
sbatch_file="$root/deploy/slurm/golomb-workers.sbatch"
golomb="${GOLOMB_BIN:-$root/target/release/golomb}"
worker="${GOLOMB_WORKER_BIN:-$root/target/release/golomb-worker}"

# Where the test cannot run: a note, or a failure when CI requires the test.
skip() {
    if [[ -n "${GOLOMB_REQUIRE_SLURM:-}" ]]; then
        echo "error (GOLOMB_REQUIRE_SLURM is set): $*" >&2
        exit 1
    fi
    echo "SKIP: $*"
    exit 0
}

missing=()
for tool in munged slurmctld slurmd sbatch squeue scancel sinfo scontrol; do
    command -v "$tool" >/dev/null 2>&1 || [[ -x "/usr/sbin/$tool" ]] || missing+=("$tool")
done
if ((${#missing[@]})); then
    skip "tests/slurm/run.sh needs Slurm and munge (missing: ${missing[*]});" \
        "on Debian: apt-get install slurm-wlm munge"
fi
PATH="$PATH:/usr/sbin"
if [[ $(id -u) -ne 0 ]]; then
    skip "tests/slurm/run.sh runs slurmd, which must run as root here (run it as root or in a container)"
fi
for bin in "$golomb" "$worker"; do
    if [[ ! -x "$bin" ]]; then
        echo "error: $bin is missing: cargo build --release first (or set GOLOMB_BIN and GOLOMB_WORKER_BIN)" >&2
        exit 1
    fi
done
# Slurm runs the job in another directory: the binaries by absolute path.
golomb="$(realpath "$golomb")"
worker="$(realpath "$worker")"

log() { printf '[%s] %s\n' "$(date +%T)" "$*"; }
fail() {
    log "FAIL: $*"
    if [[ -n "${tmp:-}" && -s "$tmp/serve.log" ]]; then
        log "the coordinator's log ($tmp/serve.log), last 40 lines:"
        tail -n 40 "$tmp/serve.log"
    fi
    failed=1
    exit 1
}

# A free TCP port on 127.0.0.1 (nothing answers on it).
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 20000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
}

# wait_for SECONDS WHAT COMMAND...: run COMMAND every second until it succeeds.
wait_for() {
    local seconds=$1 what=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            fail "timed out after ${seconds}s waiting for $what"
        fi
        sleep 1
    done
}

tmp="$(mktemp -d /tmp/golomb-slurm.XXXXXX)"
chmod 755 "$tmp"
failed=0
pids=()
slurm_job=""

cleanup() {
    local rc=$?
    set +e
    if [[ -n "$slurm_job" ]] && [[ -n "$(squeue -h -j "$slurm_job" 2>/dev/null)" ]]; then
        log "cleanup: scancel $slurm_job"
        scancel "$slurm_job"
        for _ in $(seq 60); do
            [[ -z "$(squeue -h -j "$slurm_job" 2>/dev/null)" ]] && break
            sleep 1
        done
    fi
    # Stop what this script started, newest first: coordinator, slurmd, slurmctld, munged.
    local i
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[i]}" 2>/dev/null
    done
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        for _ in $(seq 20); do
            kill -0 "${pids[i]}" 2>/dev/null || break
            sleep 0.5
        done
        kill -KILL "${pids[i]}" 2>/dev/null
        wait "${pids[i]}" 2>/dev/null
    done
    if ((rc != 0 || failed)) || [[ -n "${GOLOMB_SLURM_KEEP:-}" ]]; then
        log "logs and configuration kept in $tmp"
    else
        rm -rf "$tmp"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- munge -----------------------------------------------------------------
mkdir -m 755 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munge_socket="$tmp/munge/munge.socket"
munged --foreground --force --socket="$munge_socket" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
    --seed-file="$tmp/munge/munged.seed" 2>"$tmp/munge/munged.out" &
pids+=($!)
wait_for 20 "munged's socket" test -S "$munge_socket"
log "munged up ($munge_socket)"

# --- Slurm -----------------------------------------------------------------
host="$(hostname -s)"
user="$(id -un)"
ctld_port="$(free_port)"
slurmd_port="$(free_port)"
mkdir -p "$tmp/state" "$tmp/spool"
export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# A one-node cluster for tests/slurm/run.sh (no systemd, no cgroups).
ClusterName=golombtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# The node is taken as configured (2 CPUs, 8 GiB: the script asks --mem=4G a task),
# whatever this machine has.
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=30
MinJobAge=600
NodeName=golombnode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=8192 State=UNKNOWN
PartitionName=golomb Nodes=golombnode Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N golombnode -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [[ "$(sinfo -h -n golombnode -o %T 2>/dev/null)" == idle ]]; }
wait_for 90 "the Slurm node to be idle (see $tmp/slurmctld.log, $tmp/slurmd.log)" node_idle
log "Slurm up: slurmctld on 127.0.0.1:$ctld_port, slurmd on :$slurmd_port"
sinfo

# --- coordinator and job ---------------------------------------------------
# The coordinator answers, or has exited (then the wait stops at once).
serve_pid=""
coordinator_up_or_gone() {
    "$golomb" workers --json || ! kill -0 "$serve_pid" 2>/dev/null
}
# A port found free can be taken before `serve` binds it (the range overlaps
# the ephemeral ports of the daemons' own connections): up to three ports.
for attempt in 1 2 3; do
    port="$(free_port)"
    export GOLOMB_COORDINATOR="http://127.0.0.1:$port"
    "$golomb" serve --db "$tmp/golomb.db" --listen "127.0.0.1:$port" >"$tmp/serve.log" 2>&1 &
    serve_pid=$!
    pids+=("$serve_pid")
    wait_for 60 "the coordinator on 127.0.0.1:$port (see $tmp/serve.log)" coordinator_up_or_gone
    kill -0 "$serve_pid" 2>/dev/null && break
    log "the coordinator exited at start (attempt $attempt); its log:"
    cat "$tmp/serve.log"
    ((attempt < 3)) || fail "the coordinator did not start"
done
job="$("$golomb" submit --board 6x6 --goal classify --json | sed -n 's/.*"job": *\([0-9]*\).*/\1/p')"
[[ -n "$job" ]] || fail "golomb submit printed no job id"
log "coordinator $GOLOMB_COORDINATOR, golomb job $job (6x6 classify)"

# --- the workers, as the real array job -------------------------------------
export GOLOMB_WORKER="$worker"
submit=(sbatch --parsable --array=1-2 --cpus-per-task=1 --time=2 "$sbatch_file")
log "cd $tmp && GOLOMB_COORDINATOR=$GOLOMB_COORDINATOR GOLOMB_WORKER=$GOLOMB_WORKER ${submit[*]}"
slurm_job="$(cd "$tmp" && "${submit[@]}")"
slurm_job="${slurm_job%%;*}"
log "Slurm job $slurm_job"

# Worker names that `golomb workers --json` shows online, one a line.
online_workers() {
    "$golomb" workers --json | awk -F'"' '/"name":/ {name = $4} /"online": *true/ {print name}'
}
both_online() {
    local names
    names="$(online_workers)"
    grep -qx "slurm-$slurm_job-1" <<<"$names" && grep -qx "slurm-$slurm_job-2" <<<"$names"
}
wait_for 120 "workers slurm-$slurm_job-1 and -2 to join" both_online
log "both workers joined; squeue:"
squeue
log "golomb workers:"
"$golomb" workers

job_done() { "$golomb" status "$job" --json | grep -q '"state": "done"'; }
wait_for 300 "golomb job $job to finish" job_done
log "golomb job $job done"
"$golomb" status "$job"

# --- the values ----------------------------------------------------------------
"$golomb" results "$job" --json >"$tmp/results.json"
grep -q '"value": "win"' <(head -5 "$tmp/results.json") || fail "the root is not a win for the first player"
children="$(grep -c '"move":' "$tmp/results.json")"
losses="$(grep -c '"value": "loss"' "$tmp/results.json")"
wins="$(grep -c '"value": "win"' "$tmp/results.json")"
# the root's own "value": "win" is one of the wins
log "results: root win, $children children: $losses lose for the side to move (win for the mover), $((wins - 1)) win"
((children == 1024)) || fail "expected 1024 children, got $children"
((losses == 8)) || fail "expected 8 winning openings (child value loss), got $losses"
((wins - 1 == 1016)) || fail "expected 1016 losing openings (child value win), got $((wins - 1))"
"$golomb" results "$job" --proof "$tmp/proof.json" >/dev/null
"$golomb" verify "$tmp/proof.json" | tee "$tmp/verify.out"
grep -q '^verified: win' "$tmp/verify.out" || fail "golomb verify did not verify a win"

# --- leaving -------------------------------------------------------------------
# A second, longer job keeps both workers busy, so that they have units in hand
# when they are told to go: those must come back to the queue at once, not after
# their leases expire. Task 2 leaves by scancel (Slurm signals every process of
# the task), task 1 by the time limit (--signal=B:TERM@60 to the batch script,
# which is the worker itself).
job2="$("$golomb" submit --board 8x8 --goal classify --json | sed -n 's/.*"job": *\([0-9]*\).*/\1/p')"
[[ -n "$job2" ]] || fail "golomb submit printed no job id"
log "golomb job $job2 (8x8 classify, hours of work), to keep the workers busy"
# Worker names that `golomb workers --json` shows holding leases, one a line.
leasing_workers() {
    "$golomb" workers --json |
        awk -F': ' '/"name":/ {gsub(/[",]/, "", $2); name = $2} /"leased_units":/ {if ($2 + 0 > 0) print name}'
}
both_leasing() {
    local names
    names="$(leasing_workers)"
    grep -qx "slurm-$slurm_job-1" <<<"$names" && grep -qx "slurm-$slurm_job-2" <<<"$names"
}
wait_for 60 "both workers to lease units of job $job2" both_leasing
"$golomb" workers
log "scancel ${slurm_job}_2"
scancel "${slurm_job}_2"
task_gone() { [[ -z "$(squeue -h -j "$1" 2>/dev/null)" ]]; }
wait_for 60 "task ${slurm_job}_2 to end" task_gone "${slurm_job}_2"
log "waiting for task ${slurm_job}_1 to reach its time limit (--time=2: signal at ~1 min)"
squeue
wait_for 240 "task ${slurm_job}_1 to end" task_gone "$slurm_job"
log "allocation over; squeue:"
squeue
[[ -z "$(squeue -h)" ]] || fail "squeue is not empty"
# Task 1 must end COMPLETED, not TIMEOUT: its worker stopped on the early signal
# and exited 0 before the limit. Task 2 was cancelled; its worker too exits 0.
for task in 1 2; do
    state="$(scontrol show job "${slurm_job}_$task" 2>/dev/null |
        grep -o 'JobState=[A-Z_]*\|RunTime=[^ ]*\|TimeLimit=[^ ]*\|ExitCode=[^ ]*' | paste -sd ' ')"
    log "task $task: $state"
    want=COMPLETED
    ((task == 2)) && want=CANCELLED
    grep -q "JobState=$want" <<<"$state" || fail "task $task should have ended $want"
    grep -q "ExitCode=0:0" <<<"$state" || fail "task $task's script should have exited 0"
done
for task in 1 2; do
    file="$tmp/golomb-worker-${slurm_job}_$task.log"
    [[ -f "$file" ]] || fail "no worker log $file"
    log "worker log $file:"
    sed 's/^/    /' "$file"
    grep -q 'stopping: no new units; giving back the running ones' "$file" || fail "task $task's worker did not get SIGTERM"
    grep -q 'INFO golomb_worker: stopped:' "$file" || fail "task $task's worker did not stop cleanly"
done
# The coordinator marks a worker offline 20 s after its last heartbeat.
none_online() { [[ -z "$(online_workers)" ]]; }
wait_for 60 "the coordinator to show no worker online" none_online
log "golomb workers:"
"$golomb" workers
# What the workers held of job 2 went back to the queue when they left.
"$golomb" status "$job2" --json >"$tmp/job2.json"
grep -q '"leased": 0,' "$tmp/job2.json" || fail "job $job2 still has leased units after the workers left"
grep -q '"stale_leases": 0,' "$tmp/job2.json" || fail "job $job2 has stale leases after the workers left"
log "job $job2 after the workers left:"
"$golomb" status "$job2"
"$golomb" cancel "$job2" >/dev/null || true
log "PASS: Slurm array job $slurm_job joined, finished golomb job $job with the known values, and left"
