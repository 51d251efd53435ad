#!/usr/bin/env bash
# A real Slurm cluster on this machine, owned by one directory: munged with its own key and
# socket, slurmctld, and one slurmd per node (NodeName=node1..N, all on 127.0.0.1, each on its
# own port: Debian's slurmd takes -N NODENAME, so several run side by side without FrontEnd).
#
#   slurm-cluster.sh start DIR [EXTRA_CONF]   # EXTRA_CONF: lines appended to slurm.conf
#   slurm-cluster.sh stop DIR                 # stops what start started (pid files in DIR)
#
# start waits until `sinfo` shows every node idle and fails loudly (logs printed, daemons
# stopped) when it does not: a test that needs Slurm must never pass without it.
# Clients use it with SLURM_CONF=DIR/slurm.conf. NODES (default 3) sets the node count.
set -euo pipefail

die() { echo "slurm-cluster: $*" >&2; exit 1; }

# Free TCP ports on loopback, chosen by the kernel (bind to port 0), so two clusters (ctest -j)
# never collide.
free_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

stop_cluster() {
  local dir=$1 pidfile pid
  # Slurm daemons first (they need munge to say goodbye), then munged.
  for pidfile in "$dir"/slurmd-*.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [[ -f $pidfile ]] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [[ $pid =~ ^[0-9]+$ ]] || continue
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

show_logs() {
  local dir=$1 f
  for f in "$dir"/munged.log "$dir"/log/*.log; do
    [[ -f $f ]] || continue
    echo "---- $f (last 25 lines)" >&2
    tail -n 25 "$f" >&2
  done
}

start_cluster() {
  local dir=$1 extra=${2:-} nodes=${NODES:-3}
  for bin in munged slurmctld slurmd sinfo; do
    command -v "$bin" >/dev/null || [[ -x /usr/sbin/$bin ]] ||
      die "$bin not found: install munge slurmctld slurmd slurm-client (make deps)"
  done
  export PATH="$PATH:/usr/sbin:/sbin"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)  # slurmctld chdirs: every path in slurm.conf must be absolute
  # munged refuses a socket whose directory others cannot traverse, and a key others can read.
  chmod 0711 "$dir"
  mkdir -p "$dir/state" "$dir/log"
  head -c 1024 /dev/urandom >"$dir/munge.key"
  chmod 0400 "$dir/munge.key"
  munged --socket="$dir/munge.sock" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" ||
    { show_logs "$dir"; die "munged did not start"; }

  local ports
  read -r -a ports <<<"$(free_ports $((nodes + 1)))"
  {
    echo "# Written by tests/slurm/slurm-cluster.sh: a throw-away cluster in $dir"
    echo "ClusterName=trtest"
    echo "SlurmctldHost=localhost"
    echo "SlurmctldPort=${ports[0]}"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthInfo=socket=$dir/munge.sock"
    echo "StateSaveLocation=$dir/state"
    # %n: one spool, pid file, log and TmpFS per slurmd. The PMIx plugin puts its client
    # directory (spmix_appdir_UID_JOB.STEP) under TmpFS; one shared /tmp makes the second
    # slurmd of a step fail with "File exists".
    echo "SlurmdSpoolDir=$dir/spool/%n"
    echo "TmpFS=$dir/tmp/%n"
    echo "SlurmctldPidFile=$dir/slurmctld.pid"
    echo "SlurmdPidFile=$dir/slurmd-%n.pid"
    echo "SlurmctldLogFile=$dir/log/slurmctld.log"
    echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
    # No cgroups in a container: track processes by parent pid, bind nothing.
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "SchedulerType=sched/builtin"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "MpiDefault=none"
    echo "ReturnToService=2"
    echo "SlurmdTimeout=60"
    echo "MailProg=/bin/true"
    local i
    for ((i = 1; i <= nodes; i++)); do
      echo "NodeName=node$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=${ports[i]} CPUs=1 State=UNKNOWN"
    done
    echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
    if [[ -n $extra ]]; then
      echo "# From $extra"
      cat "$extra"
    fi
  } >"$dir/slurm.conf"
  for ((i = 1; i <= nodes; i++)); do mkdir -p "$dir/spool/node$i" "$dir/tmp/node$i"; done

  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" || { show_logs "$dir"; stop_cluster "$dir"; die "slurmctld did not start"; }
  for ((i = 1; i <= nodes; i++)); do
    slurmd -f "$SLURM_CONF" -N "node$i" ||
      { show_logs "$dir"; stop_cluster "$dir"; die "slurmd -N node$i did not start"; }
  done

  # Ready = every node registered and idle (a health check may drain one later: that is the
  # test's business, so drained counts as registered too).
  local t states=""
  for t in $(seq 120); do
    states=$(sinfo -h -N -o '%N %T' 2>/dev/null || true)
    if [[ $(grep -cE ' (idle|drained|draining)' <<<"$states" || true) -eq $nodes ]]; then
      echo "slurm-cluster: $nodes nodes up (SLURM_CONF=$SLURM_CONF)"
      sinfo -N -o '%N %T %E'
      return 0
    fi
    sleep 0.5
  done
  echo "slurm-cluster: nodes not idle after 60 s; sinfo says:" >&2
  echo "$states" >&2
  show_logs "$dir"
  stop_cluster "$dir"
  die "Slurm did not come up"
}

case "${1:-}" in
  start) [[ $# -ge 2 ]] || die "usage: $0 start DIR [EXTRA_CONF]"; start_cluster "$2" "${3:-}" ;;
  stop) [[ $# -eq 2 ]] || die "usage: $0 stop DIR"; stop_cluster "$2" ;;
  logs) [[ $# -eq 2 ]] || die "usage: $0 logs DIR"; show_logs "$2" ;;
  *) die "usage: $0 start DIR [EXTRA_CONF] | stop DIR | logs DIR" ;;
esac
