# A throw-away one-node Slurm cluster on loopback, for tests/slurm/*.t.
# Sourced after tests/lib/lib.sh. Everything lives in one temporary
# directory: config, munge key and socket, state, spool, logs. The daemons
# run in the foreground as our own children, so $! is exactly their pid and
# slurm_cluster_stop ends exactly those (never by name: a real cluster or
# another test may run the same programs on this machine).
#
# No cgroup plugin is configured at all (proctrack/linuxproc, task/none,
# jobacct_gather/none): the machine's cgroups must not be touched.

SLURM_DEBS="slurmctld slurmd munge slurm-client"
SLURM_START_TIMEOUT_S=60
_slurm_pids=""
SLURM_NODE=sbxnode
SLURM_PARTITION=sbx

# slurm_install: installs the Debian packages when missing (root only).
# The packages' own services are not used: we start private daemons.
slurm_install() {
        local missing=() pkg
        for pkg in $SLURM_DEBS; do
                [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)" = installed ] ||
                        missing+=("$pkg")
        done
        [ "${#missing[@]}" -eq 0 ] && return 0
        diag "installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        # An empty package cache (fresh CI image) needs an update first.
        if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >&2; then
                apt-get update -qq >&2 &&
                        apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >&2
        fi
}

# A TCP port nobody listens on, so a system slurmctld (6817) or a
# parallel test run cannot collide with ours.
# _slurm_free_port [NOT]: a port other than NOT.
_slurm_free_port() {
        local port
        for port in $(shuf -i 20000-40000 -n 50); do
                [ "$port" != "${1:-}" ] || continue
                if ! ss -Htln "sport = :$port" | grep -q .; then
                        echo "$port"
                        return 0
                fi
        done
        return 1
}

_slurm_write_conf() {
        local dir=$1 ctld_port=$2 slurmd_port=$3 cpus
        cpus=$(nproc)
        cat > "$dir/slurm.conf" <<CONF
ClusterName=sbxtest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
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
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerParameters=sched_interval=1
MinJobAge=600
KillWait=5
NodeName=$SLURM_NODE NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus State=UNKNOWN
PartitionName=$SLURM_PARTITION Nodes=$SLURM_NODE Default=YES MaxTime=INFINITE State=UP
CONF
}

_slurm_start_munge() {
        local dir=$1
        install -d -m 0755 "$dir/munge"
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
        chmod 0400 "$dir/munge/munge.key"
        munged --foreground --force --key-file="$dir/munge/munge.key" \
                --socket="$dir/munge/munge.socket" \
                --pid-file="$dir/munge/munged.pid" \
                --seed-file="$dir/munge/munged.seed" \
                --log-file="$dir/log/munged.log" </dev/null 2>>"$dir/log/munged.err" &
        _slurm_pids="$_slurm_pids $!"
}

# _slurm_wait SECONDS CMD...: polls CMD once a second until it succeeds.
_slurm_wait() {
        local secs=$1; shift
        while [ "$secs" -gt 0 ]; do
                "$@" >/dev/null 2>&1 && return 0
                sleep 1
                secs=$((secs - 1))
        done
        return 1
}

_slurm_node_idle() {
        sinfo -h -n "$SLURM_NODE" -o '%t' | grep -qx idle
}

# slurm_cluster_start DIR: DIR is a fresh root-owned directory. Exports
# SLURM_CONF (the client commands read it) and returns once the node is
# idle, or fails with the daemons' logs on stderr.
slurm_cluster_start() {
        local dir=$1 ctld_port slurmd_port
        chmod 0755 "$dir"
        install -d -m 0755 "$dir/log" "$dir/state" "$dir/spool"
        if ! ctld_port=$(_slurm_free_port) || ! slurmd_port=$(_slurm_free_port "$ctld_port"); then
                diag "no free TCP port for slurmctld/slurmd"
                return 1
        fi
        _slurm_write_conf "$dir" "$ctld_port" "$slurmd_port"
        export SLURM_CONF=$dir/slurm.conf
        _slurm_start_munge "$dir"
        _slurm_wait 10 munge -n -S "$dir/munge/munge.socket" || {
                diag "munged did not start:" "$(cat "$dir"/log/munged.* 2>/dev/null)"
                return 1
        }
        slurmctld -D -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
        _slurm_pids="$_slurm_pids $!"
        slurmd -D -f "$SLURM_CONF" -N "$SLURM_NODE" </dev/null >>"$dir/log/slurmd.out" 2>&1 &
        _slurm_pids="$_slurm_pids $!"
        _slurm_wait "$SLURM_START_TIMEOUT_S" _slurm_node_idle || {
                diag "the Slurm node did not become idle in ${SLURM_START_TIMEOUT_S}s:"
                sinfo -N -l >&2 || true
                tail -n 20 "$dir"/log/*.log >&2 || true
                return 1
        }
}

# slurm_cluster_stop: cancels every job of our cluster, waits for them to
# end, then stops exactly the daemons this script started.
slurm_cluster_stop() {
        local pid tries
        [ -n "$_slurm_pids" ] || return 0
        if [ -n "${SLURM_CONF:-}" ]; then
                scancel --partition="$SLURM_PARTITION" >/dev/null 2>&1 || true
                _slurm_wait 30 test -z "$(squeue -h -p "$SLURM_PARTITION" -o %i 2>/dev/null)" ||
                        diag "jobs still in the queue after scancel"
        fi
        # Reverse order: slurmd, slurmctld, then munged (they need it).
        # shellcheck disable=SC2086 # a list of pids, split on purpose
        for pid in $(printf '%s\n' $_slurm_pids | tac); do
                kill -TERM "$pid" 2>/dev/null || continue
                tries=50
                while [ "$tries" -gt 0 ] && kill -0 "$pid" 2>/dev/null; do
                        sleep 0.2
                        tries=$((tries - 1))
                done
                if kill -0 "$pid" 2>/dev/null; then
                        diag "pid $pid ignored SIGTERM; killing it"
                        kill -KILL "$pid" 2>/dev/null || true
                fi
                wait "$pid" 2>/dev/null || true
        done
        _slurm_pids=""
}
