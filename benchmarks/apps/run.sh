#!/usr/bin/env bash
# Real MPI applications from Debian packages, the whole job's wall time plain and through jpmpi
# (issue 26):
#   benchmarks/apps/run.sh [ROUNDS] [NP...]          (default: 5 rounds, 2 ranks; e.g. 5 2 8)
# Applications (APPS, default "hpcc lammps elk"; all three are Debian's Open MPI builds); the tool
# lists (TOOLS, default "accounting profile profile+java"):
#   hpcc    HPC Challenge, whose MPIRandomAccess polls with MPI_Testany (HPCC_N, the matrix order)
#   lammps  LAMMPS, a Lennard-Jones melt (LAMMPS_CELLS^3 fcc cells, LAMMPS_STEPS steps)
#   elk     Elk, the ground state of aluminium (ELK_K^3 k-points shared between the ranks)
# Each job runs plain (mpirun alone) and through `jpmpi run` with --tools accounting, profile, and
# profile plus a no-op Java level (benchmarks/java-level's NoopLevel), in every round in an order
# rotated by one each round, each in a fresh directory. TOOLS may also name accounting-site: the
# ranks with the accounting tool exactly as `jpmpi run` starts them (the command of its --dry-run)
# but without the launcher's JVM, which is how a centre's site-wide setup runs it on every job (the
# modulefile or the Slurm TaskProlog puts the dispatcher and the tool in the job's environment). The table: per application, rank count and
# tool list, the median over rounds of (job's wall time / the same round's plain wall time) - 1 and
# its range. With JPMPI_B=DIR (another installation tree, e.g. one built before a change:
# dist/target/jpmpi-<version> of another checkout, or a `jpmpi install` prefix) the three jpmpi
# configurations run again with that tree's bin/jpmpi, in the same rounds ("B:profile", ...), so
# that before and after are measured side by side (a second table: each A job against the same
# round's B job, paired). JPMPI_A=DIR measures that tree as A instead of
# the development installation (which a build during the run would change under it). A tree B older
# than the no-op level's API: JPMPI_B_NOOP_SRC=DIR, the level's source for it (`git archive COMMIT
# benchmarks/java-level/src | tar -x -C DIR --strip-components=3`). APPS_TIMES=FILE keeps every job's
# line "APP NP CONFIG ROUND SECONDS" in FILE, written as each job ends.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=openmpi
rounds=${1:-5}
shift || true
nps=("$@")
((${#nps[@]} > 0)) || nps=(2)
# shellcheck source=../common.sh
source "$root/benchmarks/common.sh"
apps=(${APPS:-hpcc lammps elk})
hpcc_n=${HPCC_N:-2000}
lammps_cells=${LAMMPS_CELLS:-10}
lammps_steps=${LAMMPS_STEPS:-1000}
elk_k=${ELK_K:-8}
export OMP_NUM_THREADS=1   # Elk and LAMMPS are OpenMP programs too: one thread per rank

for a in "${apps[@]}"; do
    case "$a" in
        hpcc) exe=hpcc ;; lammps) exe=lmp ;; elk) exe=elk-lapw ;;
        *) echo "$0: unknown application '$a' (hpcc, lammps, elk)" >&2; exit 2 ;;
    esac
    command -v "$exe" >/dev/null || { echo "$0: $exe is not installed (apt-get install ${a/elk/elk-lapw})" >&2; exit 2; }
done

compare_trees
work=$(mktemp -d "${TMPDIR:-/tmp}/jpmpi-apps.XXXXXX")
trap 'rm -rf "$work"' EXIT
# every job's wall time, one line each as it ends (APPS_TIMES=FILE keeps them: a paired analysis, a
# partial run's figures)
times=${APPS_TIMES:-$work/times.txt}
: >"$times"
declare -A noop
for t in "${trees[@]}"; do
    src=""
    [[ $t == B ]] && src=${JPMPI_B_NOOP_SRC:-}
    noop[$t]=$(build_noop_level "${jp[$t]%/bin/jpmpi}" "$work/noop-$t" $src)
done
export JPMPI_ACCOUNTING_FILE="$work/accounting.jsonl"

configs=(plain)
for t in "${trees[@]}"; do
    p=""
    [[ "$t" == A ]] || p="$t:"
    for c in ${TOOLS:-accounting profile profile+java}; do configs+=("$p$c"); done
done

# job APP NP DIR: fills the array `job` with the application's command on NP ranks, run in DIR
# (which it prepares: the input files).
job() {
    local app=$1 np=$2 dir=$3 p q
    local mpirun=(mpirun.openmpi -np "$np")
    ((np <= 2)) || mpirun+=(--oversubscribe)
    case "$app" in
        hpcc)
            p=1; q=$np
            for ((d = 2; d * d <= np; d++)); do ((np % d)) || p=$d; done
            q=$((np / p))
            sed -e "s/@N@/$hpcc_n/g" -e "s/@P@/$p/" -e "s/@Q@/$q/" "$here/inputs/hpccinf.txt" >"$dir/hpccinf.txt"
            job=("${mpirun[@]}" hpcc) ;;
        lammps)
            job=("${mpirun[@]}" lmp -in "$here/inputs/in.melt" -log none -var n "$lammps_cells" -var steps "$lammps_steps") ;;
        elk)
            sed -e "s/@K@/$elk_k/g" "$here/inputs/elk.in" >"$dir/elk.in"
            job=("${mpirun[@]}" elk-lapw) ;;
    esac
}

# one APP NP CONFIG ROUND: runs the job once, appends "APP NP CONFIG ROUND SECONDS" to $times.
one() {
    local app=$1 np=$2 config=$3 round=$4 t=A tools="" dir start end
    dir="$work/run/$app-$np-${config//[:+]/_}-$round"
    mkdir -p "$dir"
    job "$app" "$np" "$dir"
    local cmd=("${job[@]}")
    if [[ "$config" == *:* ]]; then t=${config%%:*}; fi
    case "${config#*:}" in
        plain) ;;
        accounting) tools=accounting ;;
        profile) tools=profile ;;
        profile+java) tools="profile,${noop[$t]}" ;;
        accounting-site) tools=site ;;
        *) echo "$0: unknown tool list '${config#*:}' (accounting, accounting-site, profile, profile+java)" >&2; exit 2 ;;
    esac
    if [[ "$tools" == site ]]; then
        # the launcher's own command (Shell.quote'd words), without the launcher
        eval "cmd=($("${jp[$t]}" run --dry-run --tools accounting -- "${cmd[@]}" 2>/dev/null))"
    elif [[ "$config" != plain ]]; then
        cmd=("${jp[$t]}" run --tools "$tools" -o "$dir/out" -- "${cmd[@]}")
    fi
    start=$EPOCHREALTIME
    if ! (cd "$dir" && "${cmd[@]}" >"$dir/stdout" 2>"$dir/stderr"); then
        echo "$0: $app on $np ranks, $config failed: ${cmd[*]}" >&2
        tail -20 "$dir/stderr" >&2
        exit 1
    fi
    end=$EPOCHREALTIME
    echo "$app $np $config $round $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')" >>"$times"
    rm -rf "$dir"
}

n=${#configs[@]}
for ((r = 1; r <= rounds; r++)); do
    for app in "${apps[@]}"; do
        for np in "${nps[@]}"; do
            for ((i = 0; i < n; i++)); do
                one "$app" "$np" "${configs[$(((i + r) % n))]}" "$r"
            done
        done
    done
    echo "round $r of $rounds done" >&2
done

echo "jpmpi applications benchmark: $rounds rounds; A = $tree_a${JPMPI_B:+, B = $JPMPI_B}; $(getconf _NPROCESSORS_ONLN) cpus," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sizes: hpcc N=$hpcc_n, lammps ${lammps_cells}^3 cells x $lammps_steps steps, elk ${elk_k}^3 k-points"
printf "%-8s %3s  %-18s %9s  %10s  %s\n" app np tools "wall (s)" "vs plain" "[min .. max] over rounds"
awk -v order="${configs[*]:1}" -f "$root/benchmarks/median.awk" -f /dev/stdin "$times" <<'AWK' | sort -k1,1 -k2,2n -s
{ t[$1 " " $2 " " $3 " " $4] = $5; key[$1 " " $2] = 1; round[$4] = 1 }
END {
    for (k in key) {
        split(k, kw, " ")
        plain = ""
        for (r in round) plain = plain " " t[k " plain " r]
        printf "%-8s %3d  %-18s %9.2f\n", kw[1], kw[2], "plain", sorted_median(plain, a)
        nc = split(order, conf, " ")
        for (i = 1; i <= nc; i++) {
            c = conf[i]
            ratio = ""; wall = ""
            for (r in round) {
                ratio = ratio " " 100 * (t[k " " c " " r] / t[k " plain " r] - 1); wall = wall " " t[k " " c " " r]
            }
            med = sorted_median(ratio, a); m = length(a)
            printf "%-8s %3d  %-18s %9.2f  %+8.1f %%  [%+.1f .. %+.1f]\n", kw[1], kw[2], c, sorted_median(wall, b), med, a[1], a[m]
        }
    }
}
AWK
if [[ -n "${JPMPI_B:-}" ]]; then
    # before and after side by side: each round's A job against the same round's B job, which ran
    # minutes apart at most (a noisy machine moves both alike)
    echo
    echo "A against B, job by job in the same round: A/B - 1, median [min .. max] over rounds"
    awk -v order="${configs[*]:1}" -f "$root/benchmarks/median.awk" -f /dev/stdin "$times" <<'AWK' | sort -k1,1 -k2,2n -s
{ t[$1 " " $2 " " $3 " " $4] = $5; key[$1 " " $2] = 1; round[$4] = 1 }
END {
    for (k in key) {
        split(k, kw, " ")
        nc = split(order, conf, " ")
        for (i = 1; i <= nc; i++) {
            c = conf[i]
            if (c ~ /:/) continue
            ratio = ""
            for (r in round) {
                if ((k " " c " " r) in t && (k " B:" c " " r) in t) {
                    ratio = ratio " " 100 * (t[k " " c " " r] / t[k " B:" c " " r] - 1)
                }
            }
            if (ratio == "") continue
            med = sorted_median(ratio, a); m = length(a)
            printf "%-8s %3d  %-18s %+8.1f %%  [%+.1f .. %+.1f]\n", kw[1], kw[2], c, med, a[1], a[m]
        }
    }
}
AWK
fi
