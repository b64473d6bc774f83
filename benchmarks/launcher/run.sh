#!/usr/bin/env bash
# What `jpmpi run` adds to a job beyond the job itself, its fixed cost (issue 26):
#   benchmarks/launcher/run.sh [openmpi|mpich] [RUNS] [RANKS]     (default: openmpi 21 2)
# The job is empty.c (MPI_Init, a barrier, MPI_Finalize) on RANKS ranks. In every round, in an order
# rotated by one each round, each a fresh output directory:
#   job       the job exactly as `jpmpi run --tools profile` starts it (the launcher's command from
#             `jpmpi run --dry-run`: mpirun with LD_PRELOAD and the recorder), without the launcher;
#             its dumps stay for `report` below
#   run       `jpmpi run --tools profile -o DIR -- mpirun -np RANKS ./empty`: the whole thing (without
#             profile, after the first round, from the plan the run before kept: tools-entry/README.md,
#             "What `run` does", 9)
#   anew      (without profile) that run with no plan kept, in a plans directory of its own, so
#             that it plans in the JVM and keeps its plan (the first job of a command line)
#   version   `jpmpi --version`: the script, the JDK lookup, the JVM and picocli
#   dry-run   `jpmpi run --dry-run --tools profile ...`: that and the checks (launcher, ldd, the tools)
#   report    `jpmpi report --quiet DIR` of the job's dumps: that and merging them into profile.json,
#             rendering report.txt and report.html
#   jvm       `java -version` with the launcher's JVM options: the floor of any Java launcher
#   plain     the job without jpmpi at all (mpirun alone), for scale
# The fixed cost is run - job, per round (median and range); the parts are their own times. Each
# figure twice: wall time, and CPU time (user + system of the command and all it waited for: the
# launcher's JVM with its compiler and collector threads, mpirun, the ranks), which a loaded machine
# disturbs less.
# JPMPI_B=DIR (another installation, e.g. `jpmpi install --prefix` of a build before a change): the
# same configurations with its bin/jpmpi ("B:run", ...) in the same rounds, side by side. JPMPI_A=DIR:
# that tree as A instead of the development installation. TOOLS=LIST measures `--tools LIST` instead of
# profile; a list without profile has no output directory and no `report`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
runs=${2:-21}
np=${3:-2}
case "$impl" in openmpi | mpich) ;; *) echo "usage: $0 [openmpi|mpich] [RUNS] [RANKS]" >&2; exit 2 ;; esac
# shellcheck source=../common.sh
source "$root/benchmarks/common.sh"
case "$impl" in
    openmpi) mpirun=(mpirun.openmpi -np "$np"); ((np <= 2)) || mpirun+=(--oversubscribe) ;;
    mpich) mpirun=(mpiexec.hydra -n "$np") ;;
esac
b="$here/target/$impl"
mkdir -p "$b"
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$b/empty" "$here/empty.c"
work=$(mktemp -d "${TMPDIR:-/tmp}/jpmpi-launcher.XXXXXX")
trap 'rm -rf "$work"' EXIT
compare_trees
tools=${TOOLS:-profile}
profile=""
[[ ",$tools," != *,profile,* ]] || profile=1
configs=(plain jvm)
for t in "${trees[@]}"; do
    p=""
    [[ "$t" == A ]] || p="$t:"
    configs+=("${p}job" "${p}run" "${p}version" "${p}dry-run")
    [[ -z "$profile" ]] || configs+=("${p}report")
    [[ -n "$profile" ]] || configs+=("${p}anew")
done
jvm_options="$JPMPI_TREE/share/jpmpi/java/launcher/jvm.options"

# one CONFIG ROUND: runs it once, appends "CONFIG ROUND MILLISECONDS" to times.txt
one() {
    local config=$1 round=$2 t=A what start end dir
    [[ "$config" != *:* ]] || t=${config%%:*}
    what=${config#*:}
    dir="$work/$t-$round"
    local cmd=() out=()
    [[ -z "$profile" ]] || out=(-o "$dir/$what")
    case "$what" in
        plain) cmd=("${mpirun[@]}" "$b/empty") ;;
        jvm) cmd=("$JAVA_HOME/bin/java" "@$jvm_options" -version) ;;
        job) # the launcher's own command, from its dry run (Shell.quote'd words), into DIR
            eval "cmd=($("${jp[$t]}" run --dry-run --tools "$tools" "${out[@]}" -- "${mpirun[@]}" "$b/empty" 2>/dev/null))"
            mkdir -p "$dir/job" ;;
        run) cmd=("${jp[$t]}" run --tools "$tools" "${out[@]}" -- "${mpirun[@]}" "$b/empty") ;;
        anew) cmd=(env XDG_CACHE_HOME="$dir/anew-cache" "${jp[$t]}" run --tools "$tools" -- "${mpirun[@]}" "$b/empty") ;;
        version) cmd=("${jp[$t]}" --version) ;;
        dry-run) cmd=("${jp[$t]}" run --dry-run --tools "$tools" "${out[@]}" -- "${mpirun[@]}" "$b/empty") ;;
        report) # the dumps of this round's job (which runs before it: see the order below)
            cmd=("${jp[$t]}" report --quiet "$dir/job") ;;
    esac
    start=$EPOCHREALTIME
    if ! /usr/bin/time -f "%U %S" -o "$work/cpu" "${cmd[@]}" >"$work/out" 2>&1; then
        echo "$0: $config failed: ${cmd[*]}" >&2
        cat "$work/out" >&2
        exit 1
    fi
    end=$EPOCHREALTIME
    echo "$config $round $(awk -v a="$start" -v b="$end" '{ printf "%.1f %.0f", (b - a) * 1000, ($1 + $2) * 1000 }' "$work/cpu")" \
        >>"$work/times.txt"
}

n=${#configs[@]}
for ((r = 1; r <= runs; r++)); do
    # rotated each round; a tree's report always after its job (it reads the job's dumps)
    order=()
    for ((i = 0; i < n; i++)); do
        c=${configs[$(((i + r) % n))]}
        [[ "$c" != *report ]] || continue
        order+=("$c")
        [[ "$c" != *job || -z "$profile" ]] || order+=("${c%job}report")
    done
    for c in "${order[@]}"; do
        one "$c" "$r"
    done
done

echo "jpmpi launcher's fixed cost, --tools $tools: $impl, $np ranks, $runs rounds; A = $tree_a${JPMPI_B:+, B = $JPMPI_B};" \
    "$(getconf _NPROCESSORS_ONLN) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v order="${configs[*]}" -v trees="${trees[*]}" -f "$root/benchmarks/median.awk" -f /dev/stdin "$work/times.txt" <<'AWK'
{ t[$1 " " $2] = $3; c[$1 " " $2] = $4; round[$2] = 1 }
END {
    printf "%-12s %9s  %-26s %9s  %s\n", "", "wall ms", "[min .. max] over rounds", "CPU ms", "[min .. max]"
    nc = split(order, conf, " ")
    for (i = 1; i <= nc; i++) {
        x = ""; y = ""
        for (r in round) { x = x " " t[conf[i] " " r]; y = y " " c[conf[i] " " r] }
        med = sorted_median(x, a); cmed = sorted_median(y, b)
        printf "%-12s %9.1f  %-26s %9.0f  [%.0f .. %.0f]\n", conf[i], med, "[" a[1] " .. " a[length(a)] "]", cmed, b[1], b[length(b)]
    }
    nt = split(trees, tree, " ")
    for (i = 1; i <= nt; i++) {
        p = tree[i] == "A" ? "" : tree[i] ":"
        x = ""; y = ""
        for (r in round) { x = x " " (t[p "run " r] - t[p "job " r]); y = y " " (c[p "run " r] - c[p "job " r]) }
        med = sorted_median(x, a); cmed = sorted_median(y, b)
        printf "%-12s %9.1f  %-26s %9.0f  [%.0f .. %.0f]   fixed cost: run - job, per round\n", p "run-job", med,
            "[" a[1] " .. " a[length(a)] "]", cmed, b[1], b[length(b)]
    }
}
AWK
