#!/usr/bin/env bash
# scripts/cluster.sh - a test cluster on this one machine: N hosts, each a Linux network + UTS
# namespace with its own host name and address on a bridge of its own, all sharing the file system
# (one mount namespace, as a cluster's nodes share their home directories). Nothing is routed out:
# the addresses exist on this machine only. Root only.
#
#   scripts/cluster.sh up [N [SLOTS]]    hosts jpn1..jpnN (3, 2 slots each), hostfiles, /etc/hosts lines
#   scripts/cluster.sh down              everything removed (Slurm too), /etc/hosts restored; always safe
#   scripts/cluster.sh status            the hosts (and Slurm's configuration, while its daemons run), or
#                                        exit 1 when not up
#   scripts/cluster.sh run HOST CMD...   CMD on HOST, in this directory, with this environment
#   scripts/cluster.sh hostfile openmpi|mpich   the path of the hostfile in that MPI's syntax
#   scripts/cluster.sh slurm-up          munged, slurmctld and one slurmd inside each host; waits for idle nodes
#   scripts/cluster.sh slurm-down        stops them
#   scripts/cluster.sh check             can this machine make such hosts? one line, exit 0 or 77
#   scripts/cluster.sh private HOST [DIR...]   from now on, commands on HOST see an empty read-only
#                                        file system over each DIR (a private mount, as a node that
#                                        does not mount a site's scratch area); no DIR: none again
#
# How launchers reach the hosts: scripts/cluster-ssh is an ssh-like agent (ssh options skipped, the
# command joined as ssh joins it and run by bash in a clean login-like environment on the host).
# Every command run on a host (by `run` or through the agent) has the cluster's settings in its
# environment, as a cluster's nodes have them:
#   PATH=<state>/bin:...        where ssh is the agent: Open MPI's mpirun (plm_rsh_agent ssh) and
#                               MPICH's mpiexec.hydra (launcher ssh) use it as they use ssh, and
#                               under Slurm they use Slurm instead, as on a cluster
#   SLURM_CONF=<state>/slurm/slurm.conf    (after slurm-up)
# so that `scripts/cluster.sh run jpn1 mpirun --hostfile "$(scripts/cluster.sh hostfile openmpi)" -np 6 ./app`
# runs 2 ranks on each host. (Given explicitly, `--mca plm_rsh_agent scripts/cluster-ssh` and
# `-launcher ssh -launcher-exec scripts/cluster-ssh` work the same.)
#
# A cluster made by hand stays up until `down`. One made for a run names the run's process in
# JPMPI_CLUSTER_OWNER (test-support's Cluster: the test JVM's pid): once that process is gone, what it
# left (say it was killed, its daemons with it) is no longer up, and the next `up` replaces it.
#
# State: /run/jpmpi-cluster (gone at a reboot, as the namespaces). Names: namespaces and host names jpn1..N,
# bridge jpmpibr0 with $NET.254/24 (NET: JPMPI_CLUSTER_NET, three octets, default 10.231.0), host i
# at $NET.i; the bridge's address is the host name jpctl, where slurmctld listens.
#
# Exit status: 0 done, 1 failed (one line says why), 2 usage, 77 this machine does not allow it
# (not root, no network or UTS namespaces, no bridge or veth devices, Slurm not installed): the
# line says which.
set -uo pipefail

here="$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
# One cluster per machine (its namespaces, bridge and /etc/hosts lines are the machine's): one place.
STATE=/run/jpmpi-cluster
NET=${JPMPI_CLUSTER_NET:-10.231.0}
BRIDGE=jpmpibr0
CTL=jpctl
PREFIX=jpn
AGENT="$here/cluster-ssh"
SLURM="$STATE/slurm"
HOSTS_BEGIN="# jpmpi test cluster: begin (scripts/cluster.sh down removes it)"
HOSTS_END="# jpmpi test cluster: end"

say() { printf 'cluster: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
unavailable() { say "unavailable: $*"; exit 77; }

hosts() { [[ -r "$STATE/hosts" ]] && cat "$STATE/hosts"; }

is_host() {
    local h
    for h in $(hosts); do
        [[ "$h" == "$1" ]] && return 0
    done
    return 1
}

# check: what this machine must allow, tried for real on throw-away objects.
check() {
    [[ "$(id -u)" -eq 0 ]] || unavailable "not root (namespaces, a bridge and /etc/hosts need root)"
    local c probe="jpp$$" err
    for c in ip unshare nsenter flock timeout; do
        command -v "$c" >/dev/null 2>&1 || unavailable "$c is not installed"
    done
    if ! err="$(ip netns add "$probe" 2>&1)"; then
        unavailable "this machine does not allow network namespaces (ip netns add: ${err//$'\n'/ })"
    fi
    if ! err="$(nsenter --net="/run/netns/$probe" unshare --uts true 2>&1)"; then
        ip netns del "$probe" 2>/dev/null
        unavailable "this machine does not allow UTS namespaces (unshare --uts: ${err//$'\n'/ })"
    fi
    if ! err="$(ip link add "${probe}b" type bridge 2>&1)"; then
        ip netns del "$probe" 2>/dev/null
        unavailable "this machine does not allow bridge devices (ip link add type bridge: ${err//$'\n'/ })"
    fi
    if ! err="$(ip link add "${probe}v" type veth peer name eth0 netns "$probe" 2>&1)"; then
        ip link del "${probe}b" 2>/dev/null
        ip netns del "$probe" 2>/dev/null
        unavailable "this machine does not allow veth devices (ip link add type veth: ${err//$'\n'/ })"
    fi
    ip link del "${probe}v" 2>/dev/null
    ip link del "${probe}b" 2>/dev/null
    ip netns del "$probe" 2>/dev/null
    # No grep -q in a pipe: under pipefail its early exit would fail the pipe.
    if [[ "$(ip -4 -o addr show | grep -v " $BRIDGE ")" == *" inet $NET."* ]]; then
        unavailable "the subnet $NET.0/24 is in use on this machine (JPMPI_CLUSTER_NET=three other octets)"
    fi
}

# start_time PID: when the process started (/proc/PID/stat's 22nd field, clock ticks since boot), which
# tells it from a later process given the same pid; fails when there is no such process, or it has
# ended and waits to be reaped (a zombie: state Z or X, the 3rd field).
start_time() {
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    local -a f
    read -ra f <<<"${stat##*) }"
    [[ "${f[0]:-}" != [ZX] && "${f[19]:-}" =~ ^[0-9]+$ ]] || return 1
    echo "${f[19]}"
}

# Is the process that made the cluster still there? A cluster made for a run (JPMPI_CLUSTER_OWNER:
# a test JVM's pid) ends with it: one left by a run that was killed is not taken for a developer's.
# A cluster made by hand (no owner) stays until `down`.
owner_alive() {
    [[ -f "$STATE/owner" ]] || return 0
    local pid start
    read -r pid start <"$STATE/owner" || return 1
    [[ "$pid" =~ ^[0-9]+$ && "$(start_time "$pid")" == "$start" ]]
}

# Is the cluster the state describes there, every namespace included, and its owner (if it has one)
# still running? (Asked from the hosts too, by the agent: nothing here may depend on the network
# namespace it runs in.)
is_up() {
    [[ -e "$STATE/up" ]] || return 1
    owner_alive || return 1
    local h
    for h in $(hosts); do
        [[ -e "/run/netns/$h" ]] || return 1
    done
    return 0
}

# stop_pids PID...: TERM, at most 10 s, then KILL.
stop_pids() {
    (($# > 0)) || return 0
    local i alive p
    kill -TERM "$@" 2>/dev/null
    for ((i = 0; i < 50; i++)); do
        alive=0
        for p in "$@"; do
            kill -0 "$p" 2>/dev/null && alive=1
        done
        ((alive)) || return 0
        sleep 0.2
    done
    kill -KILL "$@" 2>/dev/null
}

# The veth ends on the bridge's side: jpv1, jpv2, ...
links() {
    ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | grep -E '^jpv[0-9]+$'
}

down() {
    slurm_down
    local ns pids
    # Ours by name: the state's hosts and any jpnN an interrupted `up` left. Their processes were
    # started in them (daemons, a job's ranks).
    for ns in $({ hosts; ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$PREFIX[0-9]+$"; } | sort -u); do
        mapfile -t pids < <(ip netns pids "$ns" 2>/dev/null)
        stop_pids "${pids[@]}"
        ip netns del "$ns" 2>/dev/null
    done
    # The kernel frees a namespace's devices later; the veth pairs (jpvN, ours by name) and the bridge
    # go now, so that an `up` right after finds their names free (at most 5 s for the rest).
    local link i
    for link in $(links); do
        ip link del "$link" 2>/dev/null
    done
    ip link del "$BRIDGE" 2>/dev/null
    for ((i = 0; i < 25; i++)); do
        [[ -z "$(links)" ]] && break
        sleep 0.2
    done
    if [[ -f "$STATE/etc-hosts.orig" ]]; then
        # In place (cat, not mv): /etc/hosts may be a bind mount.
        cat "$STATE/etc-hosts.orig" >/etc/hosts || die "cannot restore /etc/hosts from $STATE/etc-hosts.orig"
    elif grep -qF "$HOSTS_BEGIN" /etc/hosts 2>/dev/null; then
        sed -i "/^$HOSTS_BEGIN\$/,/^$HOSTS_END\$/d" /etc/hosts
    fi
    rm -rf -- "$STATE"
}

# Can every host open a TCP connection to every host and to the bridge? A refused connection (no
# listener on port 9) answers at once and proves the path; a dropped one times out. A link that has
# just come up may need a moment: 10 tries per pair, 2 s each at most.
reachable() {
    local from to out rc try
    for from in $(hosts); do
        for to in $(hosts) "$CTL"; do
            for ((try = 1; try <= 10; try++)); do
                out="$(nsenter --net="/run/netns/$from" timeout 2 bash -c "exec 3<>/dev/tcp/$to/9" 2>&1)"
                rc=$?
                if ((rc == 0)) || [[ "$out" == *"refused"* ]]; then
                    break
                fi
                sleep 0.3
            done
            if ((try > 10)); then
                say "$from cannot reach $to (${out:-no answer in 2 s})"
                return 1
            fi
        done
    done
}

up() {
    local n=${1:-3} slots=${2:-2} i h
    [[ "$n" =~ ^[1-9][0-9]?$ && "$slots" =~ ^[1-9][0-9]?$ ]] || { say "up: N and SLOTS are 1..99"; exit 2; }
    if is_up; then
        say "already up: $(hosts | tr '\n' ' ')(scripts/cluster.sh down first for another shape)"
        return 0
    fi
    check
    down # whatever an interrupted run left
    mkdir -p -m 0755 "$STATE" || die "cannot make $STATE"
    if [[ -n "${JPMPI_CLUSTER_OWNER:-}" ]]; then
        local start
        [[ "$JPMPI_CLUSTER_OWNER" =~ ^[0-9]+$ ]] && start="$(start_time "$JPMPI_CLUSTER_OWNER")" \
            || die "JPMPI_CLUSTER_OWNER=$JPMPI_CLUSTER_OWNER is not a running process's pid"
        echo "$JPMPI_CLUSTER_OWNER $start" >"$STATE/owner"
    fi
    trap 'say "up failed at line $LINENO: taking down what was made"; down; exit 1' ERR
    set -E
    ip link add "$BRIDGE" type bridge
    ip addr add "$NET.254/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    : >"$STATE/hosts"
    : >"$STATE/hostfile.openmpi"
    : >"$STATE/hostfile.mpich"
    for ((i = 1; i <= n; i++)); do
        h="$PREFIX$i"
        echo "$h" >>"$STATE/hosts"
        ip netns add "$h"
        ip link add "jpv$i" type veth peer name eth0 netns "$h"
        ip link set "jpv$i" master "$BRIDGE" up
        ip -n "$h" addr add "$NET.$i/24" dev eth0
        ip -n "$h" link set eth0 up
        ip -n "$h" link set lo up
        echo "$h slots=$slots" >>"$STATE/hostfile.openmpi"
        echo "$h:$slots" >>"$STATE/hostfile.mpich"
    done
    mkdir -p "$STATE/bin"
    ln -s "$AGENT" "$STATE/bin/ssh"
    cp -p /etc/hosts "$STATE/etc-hosts.orig"
    {
        echo "$HOSTS_BEGIN"
        echo "$NET.254 $CTL"
        for ((i = 1; i <= n; i++)); do echo "$NET.$i $PREFIX$i"; done
        echo "$HOSTS_END"
    } >>/etc/hosts
    trap - ERR
    set +E
    if ! reachable; then
        down
        die "the hosts cannot reach each other over $BRIDGE (a firewall on bridged traffic?)"
    fi
    touch "$STATE/up"
    say "up: $(hosts | tr '\n' ' ')(${slots} slots each; hostfiles $STATE/hostfile.openmpi, $STATE/hostfile.mpich)"
}

# The cluster's settings, in the environment of every command on a host: PATH (its ssh first; the
# agent gives PATH=... without the cluster's bin, `run` the caller's), SLURM_CONF.
host_env() {
    printf '%s\n' "PATH=$STATE/bin:${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}"
    if [[ -f "$SLURM/slurm.conf" ]]; then
        printf '%s\n' "SLURM_CONF=$SLURM/slurm.conf"
    fi
}

# on HOST CMD...: CMD in HOST's network namespace and in a UTS namespace named HOST. nsenter, not
# ip netns exec, which mounts a /sys of its own without /sys/fs/cgroup (slurmd needs it).
on() {
    local h=$1
    shift
    is_host "$h" || die "$h is not a host of the test cluster (hosts: $(hosts | tr '\n' ' '))"
    local -a hidden=()
    [[ -f "$STATE/private/$h" ]] && mapfile -t hidden <"$STATE/private/$h"
    if ((${#hidden[@]} == 0)); then
        exec nsenter --net="/run/netns/$h" unshare --uts -- \
            /bin/sh -c 'echo "$1" >/proc/sys/kernel/hostname && shift && exec "$@"' sh "$h" "$@"
    fi
    # A mount namespace of its own, private: an empty read-only tmpfs over each hidden directory.
    exec nsenter --net="/run/netns/$h" unshare --uts --mount --propagation private -- /bin/sh -c '
        h=$1 n=$2; shift 2
        while [ "$n" -gt 0 ]; do mount -t tmpfs -o ro,mode=0755 jpmpi-private "$1" || exit 1; shift; n=$((n - 1)); done
        echo "$h" >/proc/sys/kernel/hostname && exec "$@"' sh "$h" "${#hidden[@]}" "${hidden[@]}" "$@"
}

private() {
    (($# >= 1)) || { say "usage: private HOST [DIR...]"; exit 2; }
    is_up || die "the cluster is not up (scripts/cluster.sh up)"
    local h=$1 d
    shift
    is_host "$h" || die "$h is not a host of the test cluster"
    mkdir -p "$STATE/private"
    for d in "$@"; do
        [[ "$d" == /* && -d "$d" ]] || die "private: $d is not an absolute path of a directory"
    done
    if (($# == 0)); then
        rm -f "$STATE/private/$h"
    else
        printf '%s\n' "$@" >"$STATE/private/$h"
    fi
}

run() {
    (($# >= 2)) || { say "usage: run HOST CMD..."; exit 2; }
    is_up || die "the cluster is not up (scripts/cluster.sh up)"
    local h=$1
    local -a env
    shift
    mapfile -t env < <(host_env)
    on "$h" env "${env[@]}" "$@"
}

# ---------------------------------------------------------------------------
# Slurm: munged with its own socket and key, slurmctld in a UTS namespace named jpctl on the bridge's
# address, one slurmd inside each host (so tasks see the host's name and address); every file
# under $STATE/slurm.
# ---------------------------------------------------------------------------
# The last slurm-up's daemons that still run (munged, slurmctld, one slurmd per host), one pid a line:
# a pid file's process, if it is still the daemon that wrote it (munged.pid: munged, slurmd-jpn1.pid:
# slurmd) and has not ended (a killed daemon stays a zombie until its parent, often pid 1, reaps it).
# A run killed with its daemons leaves the files.
slurm_running() {
    local f pid name
    for f in "$SLURM"/run/*.pid; do
        [[ -f "$f" ]] || continue
        pid="$(cat "$f" 2>/dev/null)"
        name="$(basename -- "$f" .pid)"
        [[ "$pid" =~ ^[0-9]+$ && "$(cat "/proc/$pid/comm" 2>/dev/null)" == "${name%%-*}" ]] && start_time "$pid" >/dev/null \
            && echo "$pid"
    done
}

# Are all of them running?
slurm_alive() {
    (($(slurm_running | wc -l) == $(hosts | wc -l) + 2))
}

slurm_down() {
    [[ -d "$SLURM" ]] || return 0
    local -a pids
    mapfile -t pids < <(slurm_running)
    stop_pids "${pids[@]}"
    rm -rf -- "$SLURM"
}

slurm_up() {
    is_up || die "the cluster is not up (scripts/cluster.sh up)"
    local c i h n port=16817 cpus idle=0
    for c in slurmctld slurmd sinfo munged; do
        PATH="$PATH:/usr/sbin:/sbin" command -v "$c" >/dev/null 2>&1 \
            || unavailable "$c is not installed (Debian: slurm-wlm slurmctld slurmd slurm-client munge)"
    done
    if [[ -f "$SLURM/up" ]]; then
        if slurm_alive; then
            say "slurm already up (SLURM_CONF=$SLURM/slurm.conf)"
            return 0
        fi
        say "slurm: a daemon of the last slurm-up is gone: starting Slurm again"
    fi
    slurm_down
    mkdir -p "$SLURM"/{run,log,spool,ctld,munge} || die "cannot make $SLURM"
    chmod 0700 "$SLURM/munge"
    n=$(hosts | wc -l)
    cpus=$(awk '{ split($2, s, "="); print s[2]; exit }' "$STATE/hostfile.openmpi")
    {
        echo "# The jpmpi test cluster's Slurm (scripts/cluster.sh slurm-up); slurm-down removes it."
        echo "ClusterName=jpmpi"
        echo "SlurmctldHost=$CTL($NET.254)"
        echo "SlurmctldPort=$port"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        echo "CredType=cred/munge"
        echo "AuthInfo=socket=$SLURM/munge/munge.socket"
        echo "StateSaveLocation=$SLURM/ctld"
        echo "SlurmctldPidFile=$SLURM/run/slurmctld.pid"
        echo "SlurmctldLogFile=$SLURM/log/slurmctld.log"
        echo "SlurmdSpoolDir=$SLURM/spool/%n"
        echo "SlurmdPidFile=$SLURM/run/slurmd-%n.pid"
        echo "SlurmdLogFile=$SLURM/log/slurmd-%n.log"
        echo "ProctrackType=proctrack/pgid"
        echo "TaskPlugin=task/none"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_Core"
        echo "SlurmdParameters=config_overrides"
        echo "MpiDefault=none"
        echo "ReturnToService=2"
        echo "AccountingStorageType=accounting_storage/none"
        echo "JobCompType=jobcomp/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "MinJobAge=600"
        # A time limit's SIGTERM, then SIGKILL KillWait seconds later (Slurm's default 30).
        echo "KillWait=10"
        # Every task's prolog: $SLURM/task-prolog runs $SLURM/task-prolog.site when a test puts one
        # there (a site's TaskProlog, as SlurmSiteIT does), else nothing, so other jobs are unaffected.
        echo "TaskProlog=$SLURM/task-prolog"
        for ((i = 1; i <= n; i++)); do
            echo "NodeName=$PREFIX$i NodeAddr=$NET.$i Port=$((port + i)) CPUs=$cpus State=UNKNOWN"
        done
        echo "PartitionName=jpmpi Nodes=$PREFIX[1-$n] Default=YES MaxTime=30 State=UP"
    } >"$SLURM/slurm.conf"
    export SLURM_CONF="$SLURM/slurm.conf" PATH="$PATH:/usr/sbin:/sbin"
    printf '%s\n' '#!/bin/sh' "# scripts/cluster.sh: a site's TaskProlog, when $SLURM/task-prolog.site is there." \
        "[ -x '$SLURM/task-prolog.site' ] && exec '$SLURM/task-prolog.site'" 'exit 0' >"$SLURM/task-prolog" \
        && chmod 0755 "$SLURM/task-prolog" || die "cannot write $SLURM/task-prolog"
    # A key of its own: the cluster does not need (or touch) the machine's munge installation.
    (umask 077 && head -c 1024 /dev/urandom >"$SLURM/munge/munge.key") || die "cannot make a munge key"
    munged --socket="$SLURM/munge/munge.socket" --pid-file="$SLURM/run/munged.pid" --key-file="$SLURM/munge/munge.key" \
        --log-file="$SLURM/log/munged.log" --seed-file="$SLURM/munge/seed" --force 9>&- \
        || { slurm_down; die "munged did not start"; }
    # slurmctld checks that its host name is SlurmctldHost's: a UTS namespace named jpctl.
    if ! unshare --uts -- /bin/sh -c 'echo "$1" >/proc/sys/kernel/hostname && shift && exec "$@"' sh "$CTL" \
        slurmctld -f "$SLURM_CONF" -i 9>&-; then
        say "slurmctld did not start: $(tail -n 3 "$SLURM/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
        slurm_down
        exit 1
    fi
    # Each slurmd its own copy of slurm.conf, for an mpi.conf of its own beside it: the PMIx plugin's
    # temporary directory per node (the slurmstepds of all nodes share this file system).
    for h in $(hosts); do
        mkdir -p "$SLURM/spool/$h" "$SLURM/etc/$h" "$SLURM/pmix/$h"
        cp "$SLURM_CONF" "$SLURM/etc/$h/slurm.conf"
        echo "PMIxCliTmpDirBase=$SLURM/pmix/$h" >"$SLURM/etc/$h/mpi.conf"
        if ! (on "$h" env SLURM_CONF="$SLURM/etc/$h/slurm.conf" slurmd -f "$SLURM/etc/$h/slurm.conf" -N "$h" \
            9>&-); then
            say "slurmd of $h did not start: $(tail -n 3 "$SLURM/log/slurmd-$h.log" 2>/dev/null | tr '\n' ' ')"
            slurm_down
            exit 1
        fi
    done
    # At most 60 s for every node to be idle.
    for ((i = 0; i < 120; i++)); do
        idle="$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)"
        ((idle == n)) && break
        sleep 0.5
    done
    if ((idle != n)); then
        say "slurm: $idle of $n nodes idle after 60 s: $(sinfo -h -N -o '%N %T' 2>&1 | tr '\n' ' ')"
        slurm_down
        exit 1
    fi
    touch "$SLURM/up"
    say "slurm up: $n nodes idle (SLURM_CONF=$SLURM_CONF)"
}

# One change at a time (two test runs, a developer and a test): up, down and Slurm's wait for each
# other. The daemons slurm-up starts do not keep the lock (9>&-).
case "${1:-}" in
    up | down | slurm-up | slurm-down)
        if [[ "$(id -u)" -eq 0 ]]; then
            exec 9>>/run/jpmpi-cluster.lock && flock -w 300 9 \
                || die "another scripts/cluster.sh kept the lock for 300 s"
        fi
        ;;
esac
case "${1:-}" in
    up) shift; up "$@" ;;
    down) down; say "down" ;;
    check) check && say "this machine can make namespaced hosts" ;;
    status)
        if ! is_up; then
            if [[ -e "$STATE/up" ]]; then
                say "not up: what is left belongs to a run that has ended (scripts/cluster.sh up or down clears it)"
            else
                say "not up"
            fi
            exit 1
        fi
        hosts
        if [[ -f "$SLURM/up" ]]; then
            if slurm_alive; then
                echo "slurm: SLURM_CONF=$SLURM/slurm.conf"
            else
                say "slurm: a daemon is gone (scripts/cluster.sh slurm-up starts Slurm again)"
            fi
        fi
        ;;
    run) shift; run "$@" ;;
    private) shift; private "$@" ;;
    hostfile)
        is_up || die "the cluster is not up (scripts/cluster.sh up)"
        [[ "${2:-}" == openmpi || "${2:-}" == mpich ]] || { say "usage: hostfile openmpi|mpich"; exit 2; }
        echo "$STATE/hostfile.$2"
        ;;
    env) is_up || die "the cluster is not up (scripts/cluster.sh up)"; host_env ;;
    slurm-up) slurm_up ;;
    slurm-down) slurm_down; say "slurm down" ;;
    on) shift; (($# >= 2)) || exit 2; on "$@" ;; # the agent's way in: HOST CMD..., nothing added
    *) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
