#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for trying docs/campaign.md's Slurm commands and for the
# slurm test (tests/slurm/):
#
#   scripts/slurm-test-cluster.sh [-- COMMAND [ARG...]]
#
# starts munged, slurmctld and slurmd from Debian 12's packages (scripts/install-deps.sh --slurm
# installs them) as plain processes, without systemd, everything under one scratch folder; runs COMMAND
# (default: an interactive shell) in the current folder with SLURM_CONF set, so that sbatch,
# squeue, scancel and scontrol talk to this cluster; then stops the daemons and deletes the
# folder, however COMMAND ends. It exits with COMMAND's status, or 77 (the "skipped" of ctest's
# SKIP_RETURN_CODE) with one line saying why where the cluster cannot be set up here; with
# PECONFORM_REQUIRE_SLURM=1 (.ci/run, whose machine has Slurm installed) that is exit 1 instead,
# so that CI cannot pass by skipping.
#
# The node is this machine with its cores; its daemons listen on free ports of 127.0.0.1 only,
# and its munge key is made for this cluster alone. Jobs run as the user who submits them: as
# root here, where slurmctld and slurmd also run (SlurmUser=root), as they must to start jobs.
set -euo pipefail

if [[ ${1:-} == -- ]]; then shift; fi
if [[ $# -eq 0 ]]; then set -- "${SHELL:-bash}" -i; fi

skip() {
  echo "slurm-test-cluster: $*" >&2
  [[ ${PECONFORM_REQUIRE_SLURM:-} == 1 ]] && exit 1
  exit 77
}

for program in munged mungekey slurmctld slurmd sbatch scontrol python3; do
  command -v "$program" > /dev/null || skip "no $program (scripts/install-deps.sh --slurm installs Slurm and munge)"
done
[[ $(id -u) -eq 0 ]] || skip "slurmd must run as root to start jobs; run this as root"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/peconform-slurm.XXXXXX")
daemons=()
# Jobs first: a job's processes belong to its slurmstepd, which outlives slurmd.
stop_cluster() {
  local pid
  # Only once our own slurm.conf exists: a SLURM_CONF from the caller names another cluster.
  if [[ -e $scratch/slurm.conf ]] && SLURM_CONF=$scratch/slurm.conf scancel --full --user="$(id -un)" 2> /dev/null; then
    for _ in $(seq 50); do
      [[ -z $(SLURM_CONF=$scratch/slurm.conf squeue --noheader --format=%i 2> /dev/null) ]] && break
      sleep 0.2
    done
  fi
  for pid in "${daemons[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${daemons[@]}"; do wait "$pid" 2> /dev/null || true; done
  rm -rf "$scratch"
}
trap stop_cluster EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Each daemon's log, for the message when the cluster does not come up.
logs_of_daemons() { tail -n 5 "$scratch"/*.log 2> /dev/null >&2 || true; }

mkdir -p "$scratch/munge" "$scratch/state" "$scratch/spool"
chmod 700 "$scratch/munge"
mungekey --create --keyfile="$scratch/munge/munge.key" 2> /dev/null || skip "mungekey could not make a key"
munged --foreground --force --socket="$scratch/munge/socket" --key-file="$scratch/munge/munge.key" \
  --pid-file="$scratch/munge/munged.pid" --seed-file="$scratch/munge/seed" --log-file="$scratch/munged.log" \
  > /dev/null 2>&1 &
daemons+=($!)

# Two ports nothing listens on now (another cluster of this script may be running beside us).
read -r controller_port node_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))')

host=$(hostname -s)
export SLURM_CONF=$scratch/slurm.conf
cat > "$SLURM_CONF" << EOF
ClusterName=peconform
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$controller_port
SlurmdPort=$node_port
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$scratch/munge/socket
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool
SlurmctldPidFile=$scratch/slurmctld.pid
SlurmdPidFile=$scratch/slurmd.pid
SlurmctldLogFile=$scratch/slurmctld.log
SlurmdLogFile=$scratch/slurmd.log
# No cgroups: processes are tracked by their parents, and tasks are not bound to cores.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
# Schedule at each event (a submission, a job's end), so that jobs start within a second.
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=5
MailProg=/bin/true
# Ended jobs stay listed (scontrol show job: their state and exit code) for ten minutes.
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=peconform Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" > "$scratch/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" > "$scratch/slurmd.out" 2>&1 &
daemons+=($!)

# Up when the node takes jobs: idle (or mixed, allocated) in sinfo.
for _ in $(seq 100); do
  state=$(sinfo --noheader --nodes="$host" --format=%t 2> /dev/null || true)
  [[ $state == idle || $state == mix || $state == alloc ]] && break
  for pid in "${daemons[@]}"; do
    kill -0 "$pid" 2> /dev/null || { logs_of_daemons; skip "a daemon (pid $pid) ended while the cluster started"; }
  done
  sleep 0.2
done
[[ $state == idle || $state == mix || $state == alloc ]] \
  || { logs_of_daemons; skip "node $host is '${state:-unknown}' after 20 s, not idle"; }

status=0
"$@" || status=$?
exit "$status"
