# shellcheck shell=bash
# scripts/lib.sh - shared helpers for jpmpi's shell entry points.
#
# Source it; do not execute it:   source "$JPMPI_ROOT/scripts/lib.sh"
#
# It is safe under `set -euo pipefail`: every function reports failure through
# its return status (and one line on stderr) instead of relying on `set -e`,
# so callers can write `jpmpi_find_jdk || exit 1`.
#
# Functions:
#   jpmpi_find_jdk         export JAVA_HOME (JDK >= 22) and put its bin/ first on PATH
#   jpmpi_ensure_packages  make sure the MPI toolchains and build tools are installed
#   jpmpi_mvn ARGS...      run the Maven wrapper in batch mode from the repository root
#   jpmpi_allow_root       let Open MPI run as root (export OMPI_ALLOW_RUN_AS_ROOT*)
#
# Environment knobs:
#   JAVA_HOME              tried first by jpmpi_find_jdk
#   JPMPI_JVM_DIRS         colon-separated directories scanned for JDKs (default /usr/lib/jvm)
#   JPMPI_OPENMPI_MPICC, JPMPI_OPENMPI_MPIRUN, JPMPI_MPICH_MPICC, JPMPI_MPICH_MPIRUN
#                          Open MPI / MPICH compiler and launcher commands (defaults are
#                          Debian's mpicc.openmpi, mpirun.openmpi, mpicc.mpich, mpiexec.hydra)

if [[ -n "${JPMPI_LIB_LOADED:-}" ]]; then
    return 0
fi
JPMPI_LIB_LOADED=1

JPMPI_ROOT="$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
export JPMPI_ROOT

# The oldest Java release with a final java.lang.foreign (FFM) API.
JPMPI_MIN_JAVA=22

# Debian packages the build, the tests and the demo need (chromium: the profile's HTML report is
# checked in a headless browser; python3-mpi4py and python3-numpy: a program that loads MPI at run time;
# iproute2, util-linux and the Slurm packages: the multi-host tests' cluster, scripts/cluster.sh;
# environment-modules: the site modulefile is loaded by a test; maven: Debian's Maven 3.8, with which a
# `jpmpi new-tool` project must build too (NewToolIT); lua5.3 and Lmod's Lua modules: Lmod, which
# conflicts with environment-modules as a package, is unpacked from its .deb by jpmpi_lmod_dir);
# hpcc, lammps and elk-lapw: real applications (Debian's Open MPI builds) whose results must not change
# under jpmpi (dist's AppResultsIT) and which benchmarks/apps measures (~17 MB of packages).
JPMPI_DEB_PACKAGES=(openmpi-bin libopenmpi-dev mpich libmpich-dev gfortran g++ make unzip binutils chromium
    python3-mpi4py python3-numpy iproute2 util-linux slurm-wlm slurmctld slurmd slurm-client munge
    environment-modules maven tcl lua5.3 lua-filesystem lua-posix lua-term lua-json hpcc lammps elk-lapw)

: "${JPMPI_OPENMPI_MPICC:=mpicc.openmpi}"
: "${JPMPI_OPENMPI_MPIRUN:=mpirun.openmpi}"
: "${JPMPI_MPICH_MPICC:=mpicc.mpich}"
: "${JPMPI_MPICH_MPIRUN:=mpiexec.hydra}"
export JPMPI_OPENMPI_MPICC JPMPI_OPENMPI_MPIRUN JPMPI_MPICH_MPICC JPMPI_MPICH_MPIRUN

# jpmpi_allow_root: Open MPI refuses to start as root unless told that this is
# deliberate (containers and CI runners usually run as root). The project's own
# scripts (tests, demo, benchmarks) say so; bin/jpmpi leaves that to the user.
jpmpi_allow_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
}

jpmpi_log() {
    printf 'jpmpi: %s\n' "$*" >&2
}

# ---------------------------------------------------------------------------
# JDK discovery
# ---------------------------------------------------------------------------

# _jpmpi_java_version DIR: print the full Java version of the JDK in DIR
# ("25.0.3", "17.0.15", "1.8.0_392", "22-ea"), from DIR/release or else from
# DIR/bin/java -version. Returns 1 when neither says anything.
_jpmpi_java_version() {
    local dir=$1 v="" line
    local re='^JAVA_VERSION="?([^"]*)"?[[:space:]]*$'
    if [[ -r "$dir/release" ]]; then
        # read here, not with sed: bin/jpmpi comes this way on every command
        while IFS= read -r line || [[ -n "$line" ]]; do
            if [[ "$line" =~ $re ]]; then
                v=${BASH_REMATCH[1]}
                break
            fi
        done <"$dir/release"
    fi
    if [[ -z "$v" && -x "$dir/bin/java" ]]; then
        v="$("$dir/bin/java" -version 2>&1 | sed -n 's/^.* version "\([^"]*\)".*$/\1/p')" || v=""
        v="${v%%$'\n'*}"
    fi
    [[ -n "$v" ]] || return 1
    printf '%s\n' "$v"
}

# _jpmpi_java_major VERSION: "25.0.3" -> 25, "1.8.0_392" -> 8, "22-ea" -> 22.
_jpmpi_java_major() {
    local v=$1
    if [[ "$v" == 1.* ]]; then
        v="${v#1.}"
    fi
    v="${v%%[!0-9]*}"
    [[ -n "$v" ]] || return 1
    printf '%s\n' "$((10#$v))"
}

# _jpmpi_jdk_missing DIR: print what a usable JDK in DIR lacks (nothing if complete).
_jpmpi_jdk_missing() {
    local dir=$1 missing=()
    [[ -x "$dir/bin/java" ]] || missing+=(bin/java)
    [[ -x "$dir/bin/javac" ]] || missing+=(bin/javac)
    [[ -f "$dir/lib/server/libjvm.so" ]] || missing+=(lib/server/libjvm.so)
    if ((${#missing[@]} > 0)); then
        printf '%s\n' "${missing[*]}"
    fi
}

# _jpmpi_describe_jdk DIR: what DIR holds, for error messages: "17",
# "23; no bin/javac lib/server/libjvm.so", "not a JDK".
_jpmpi_describe_jdk() {
    local dir=$1 v major lacks
    lacks="$(_jpmpi_jdk_missing "$dir")"
    if v="$(_jpmpi_java_version "$dir")" && major="$(_jpmpi_java_major "$v")"; then
        printf '%s%s\n' "$major" "${lacks:+; no $lacks}"
    else
        printf 'not a JDK\n'
    fi
}

# jpmpi_find_jdk: export JAVA_HOME pointing at a complete JDK >= 22 and put
# $JAVA_HOME/bin first on PATH. $JAVA_HOME wins if it qualifies; otherwise the
# highest qualifying version under $JPMPI_JVM_DIRS (default /usr/lib/jvm), with a
# note on stderr unless JPMPI_QUIET_JDK is set; JPMPI_JDK_MAJOR (not exported) is its major version.
jpmpi_find_jdk() {
    local min=$JPMPI_MIN_JAVA chosen="" chosen_version="" v major d root
    local -a roots=() candidates=() inventory=()
    local -A seen=()
    local java_home_note="JAVA_HOME unset"

    if [[ -n "${JAVA_HOME:-}" ]]; then
        if v="$(_jpmpi_java_version "$JAVA_HOME")" && major="$(_jpmpi_java_major "$v")" \
            && ((major >= min)) && [[ -z "$(_jpmpi_jdk_missing "$JAVA_HOME")" ]]; then
            chosen="$JAVA_HOME"
            chosen_version="$v"
        fi
    fi

    if [[ -z "$chosen" ]]; then
        IFS=: read -r -a roots <<<"${JPMPI_JVM_DIRS:-/usr/lib/jvm}"
        for root in "${roots[@]}"; do
            [[ -n "$root" ]] || continue
            if [[ ! -d "$root" ]]; then
                inventory+=("$root does not exist")
                continue
            fi
            local -a here=()
            for d in "$root"/*; do
                [[ -d "$d" ]] || continue
                # Debian ships compatibility symlinks (java-1.17.0-openjdk-amd64 ->
                # java-17-openjdk-amd64); look at each real directory once.
                local real
                real="$(cd -P -- "$d" && pwd)" || continue
                [[ -z "${seen[$real]:-}" ]] || continue
                seen[$real]=1
                here+=("${real##*/} ($(_jpmpi_describe_jdk "$real"))")
                if v="$(_jpmpi_java_version "$d")" && major="$(_jpmpi_java_major "$v")" \
                    && ((major >= min)) && [[ -z "$(_jpmpi_jdk_missing "$d")" ]]; then
                    candidates+=("$v"$'\t'"$d")
                fi
            done
            if ((${#here[@]} > 0)); then
                local joined
                joined="$(printf '%s, ' "${here[@]}")"
                inventory+=("$root has: ${joined%, }")
            else
                inventory+=("$root has: nothing")
            fi
        done
        if ((${#candidates[@]} > 0)); then
            local best
            best="$(printf '%s\n' "${candidates[@]}" | sort -t $'\t' -k1,1V | tail -n 1)"
            chosen_version="${best%%$'\t'*}"
            chosen="${best#*$'\t'}"
        fi
    fi

    # what JAVA_HOME holds, said only when it is not used
    if [[ -n "${JAVA_HOME:-}" && "$chosen" != "$JAVA_HOME" ]]; then
        java_home_note="JAVA_HOME=$JAVA_HOME is $(_jpmpi_describe_jdk "$JAVA_HOME")"
    fi
    if [[ -z "$chosen" ]]; then
        local where
        where="$(printf '%s; ' "${inventory[@]}")"
        jpmpi_log "no JDK >= $min found ($java_home_note; ${where%; }); install one (Debian: openjdk-25-jdk or Temurin 25) and set JAVA_HOME"
        return 1
    fi

    # Quiet (the installed launcher) only when there was no JAVA_HOME to pass over: a JAVA_HOME that
    # is not used is always said, in one line.
    if [[ "$chosen" != "${JAVA_HOME:-}" && ( -z "${JPMPI_QUIET_JDK:-}" || -n "${JAVA_HOME:-}" ) ]]; then
        jpmpi_log "using JDK $chosen_version at $chosen ($java_home_note)"
    fi
    JAVA_HOME="$chosen"
    export JAVA_HOME
    # not exported: bin/jpmpi picks the launcher's AOT cache with it
    JPMPI_JDK_MAJOR="$(_jpmpi_java_major "$chosen_version")"
    case ":$PATH:" in
        ":$JAVA_HOME/bin:"*) ;;
        *) PATH="$JAVA_HOME/bin:$PATH" ;;
    esac
    export PATH
}

# ---------------------------------------------------------------------------
# System prerequisites
# ---------------------------------------------------------------------------

# _jpmpi_missing_debs: print the packages of JPMPI_DEB_PACKAGES not installed.
_jpmpi_missing_debs() {
    local p status
    for p in "${JPMPI_DEB_PACKAGES[@]}"; do
        status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" || status=""
        [[ "$status" == *" installed" ]] || printf '%s\n' "$p"
    done
}

# _jpmpi_missing_commands: print the commands the build and demo call that
# are not on PATH.
_jpmpi_missing_commands() {
    local c
    for c in "$JPMPI_OPENMPI_MPICC" "$JPMPI_OPENMPI_MPIRUN" "$JPMPI_MPICH_MPICC" "$JPMPI_MPICH_MPIRUN" \
        gfortran g++ make unzip nm; do
        command -v "$c" >/dev/null 2>&1 || printf '%s\n' "$c"
    done
}

_jpmpi_modules_hint() {
    jpmpi_log "  or load modules providing Open MPI >= 4.1 and MPICH >= 4.0 mpicc/mpirun and gfortran"
    jpmpi_log "  (and point JPMPI_OPENMPI_MPICC, JPMPI_OPENMPI_MPIRUN, JPMPI_MPICH_MPICC, JPMPI_MPICH_MPIRUN at them)"
}

# jpmpi_lmod_init DIR: print the path of an Lmod init script for bash, unpacking Debian's lmod
# package into DIR the first time (with its paths rewritten to DIR). The package conflicts with
# environment-modules, so it is never installed: its Lua modules are (JPMPI_DEB_PACKAGES), and the
# tests that load modulefiles with Lmod (dist's ModulesIT) run it from DIR.
jpmpi_lmod_init() {
    local dir=$1
    local init="$dir/usr/share/lmod/lmod/init/bash"
    if [[ ! -r "$init" ]]; then
        local deb
        mkdir -p "$dir/deb" || return 1
        if ! (cd "$dir/deb" && apt-get download -q lmod >/dev/null 2>&1); then
            jpmpi_log "cannot download Debian's lmod package (apt-get download lmod) into $dir/deb"
            return 1
        fi
        deb=$(ls "$dir"/deb/lmod_*.deb | head -1)
        dpkg-deb -x "$deb" "$dir" || return 1
        grep -rlI -e /usr/share/lmod -e /usr/lib/lmod -e /etc/lmod "$dir/usr/share/lmod" | xargs sed -i \
            -e "s#/usr/share/lmod#$dir/usr/share/lmod#g" -e "s#/usr/lib/lmod#$dir/usr/lib/lmod#g" \
            -e "s#/etc/lmod#$dir/etc/lmod#g" || return 1
    fi
    printf '%s\n' "$init"
}

# jpmpi_ensure_packages: make sure Open MPI, MPICH, gfortran, g++, make, unzip
# and nm are available. On Debian as root, missing packages are installed with
# apt-get; otherwise the command to run is printed and 1 returned.
jpmpi_ensure_packages() {
    local -a missing=() absent=()

    if ! command -v dpkg-query >/dev/null 2>&1; then
        mapfile -t absent < <(_jpmpi_missing_commands)
        if ((${#absent[@]} > 0)); then
            jpmpi_log "missing commands: ${absent[*]} (not a Debian system: install Open MPI, MPICH, gfortran, g++, make, unzip and binutils with your package manager)"
            _jpmpi_modules_hint
            return 1
        fi
        jpmpi_log "prerequisites present"
        return 0
    fi

    mapfile -t missing < <(_jpmpi_missing_debs)
    if ((${#missing[@]} == 0)); then
        jpmpi_log "prerequisites present"
        return 0
    fi

    if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        jpmpi_log "installing missing packages: ${missing[*]}"
        if [[ -z "${JPMPI_APT_UPDATED:-}" ]]; then
            if ! apt-get update -q; then
                jpmpi_log "apt-get update failed"
                return 1
            fi
            JPMPI_APT_UPDATED=1
        fi
        if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; then
            jpmpi_log "apt-get install failed for: ${missing[*]}"
            return 1
        fi
        mapfile -t missing < <(_jpmpi_missing_debs)
        if ((${#missing[@]} > 0)); then
            jpmpi_log "still missing after apt-get install: ${missing[*]}"
            return 1
        fi
        jpmpi_log "prerequisites present"
        return 0
    fi

    # Not root (or no apt-get): accept toolchains that are on PATH anyway,
    # e.g. from environment modules, else say exactly what to run.
    mapfile -t absent < <(_jpmpi_missing_commands)
    if ((${#absent[@]} == 0)); then
        jpmpi_log "prerequisites present (on PATH; Debian packages not installed: ${missing[*]})"
        return 0
    fi
    jpmpi_log "missing Debian packages: ${missing[*]}; install them with:"
    jpmpi_log "  sudo apt-get install -y --no-install-recommends ${missing[*]}"
    _jpmpi_modules_hint
    return 1
}

# ---------------------------------------------------------------------------
# Maven
# ---------------------------------------------------------------------------

# jpmpi_mvn ARGS...: run the pinned Maven wrapper in batch mode on the reactor.
jpmpi_mvn() {
    (cd -- "$JPMPI_ROOT" && "$JPMPI_ROOT/mvnw" -B "$@")
}

# jpmpi_tree: export JPMPI_TREE, the development installation the build assembles
# (dist/target/jpmpi-<version>/, laid out as io.jpmpi.platform.InstallLayout says), building it with
# the Maven wrapper when it is missing. The benchmarks measure what users install.
jpmpi_tree() {
    local t newest=""
    for t in "$JPMPI_ROOT"/dist/target/jpmpi-*/bin/jpmpi; do
        if [[ -x "$t" && ( -z "$newest" || "$t" -nt "$newest" ) ]]; then
            newest=$t
        fi
    done
    if [[ -z "$newest" ]]; then
        jpmpi_log "building jpmpi (./mvnw install -DskipTests)"
        jpmpi_mvn -q install -DskipTests || return 1
        jpmpi_tree
        return
    fi
    JPMPI_TREE="$(cd -- "$(dirname -- "$newest")/.." && pwd)"
    export JPMPI_TREE
}
