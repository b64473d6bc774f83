#!/usr/bin/env bash
# scripts/c-mutants.sh - the C mutation lane. Each line of scripts/c-mutants.tsv is a realistic
# one-line bug in the dispatcher core, the profile recorder or the accounting level, and the tests
# that should notice it. One mutant at a time: the line is changed in place, the module is rebuilt
# and those tests run; then the file is put back. A mutant whose tests still pass SURVIVED.
#
#   scripts/c-mutants.sh [ID...]        (after a build: ./mvnw install -DskipTests)
#
# Prints one row per mutant (killed / SURVIVED / did not compile) and the score; exits 1 when a
# mutant survived or a pattern no longer matches its file exactly once.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"
jpmpi_allow_root
JPMPI_QUIET_JDK=1 jpmpi_find_jdk || exit 1

table="$JPMPI_ROOT/scripts/c-mutants.tsv"
work=$(mktemp -d)
current=""
restore() {
    if [[ -n "$current" ]]; then
        cp -p "$work/original" "$JPMPI_ROOT/$current"
        touch "$JPMPI_ROOT/$current"
    fi
}
trap 'restore; rm -rf "$work"' EXIT

killed=0 survived=0 broken=0 total=0 status=0
modules=()
printf '%-10s %-16s %7s  %s\n' "mutant" "result" "seconds" "what"
while IFS=$'\t' read -r id file from to module tests what; do
    [[ -z "$id" || "$id" == \#* ]] && continue
    if (($# > 0)) && [[ " $* " != *" $id "* ]]; then
        continue
    fi
    path="$JPMPI_ROOT/$file"
    if ! FROM=$from perl -0ne '$c = () = /\Q$ENV{FROM}\E/g; exit($c == 1 ? 0 : 3)' "$path"; then
        printf '%-10s %-16s %7s  %s\n' "$id" "NO MATCH" "-" "$file no longer has its line once: update the table"
        status=1
        continue
    fi
    cp -p "$path" "$work/original"
    current=$file
    FROM=$from TO=$to perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$path"
    start=$(date +%s)
    # shellcheck disable=SC2086 # the table's test arguments are words
    if jpmpi_mvn -o verify -pl "$module" -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
        -Dfailsafe.failIfNoSpecifiedTests=false $tests >"$work/log" 2>&1 </dev/null; then
        result=SURVIVED
        survived=$((survived + 1))
        status=1
    elif grep -qE '(error:|\*\*\* \[).*' "$work/log" && ! grep -q 'Tests run:' "$work/log"; then
        result="did not compile"
        broken=$((broken + 1))
    else
        result=killed
        killed=$((killed + 1))
    fi
    total=$((total + 1))
    restore
    current=""
    [[ " ${modules[*]} " == *" $module "* ]] || modules+=("$module")
    printf '%-10s %-16s %7s  %s\n' "$id" "$result" "$(($(date +%s) - start))" "$what"
done <"$table"
echo "c-mutants: $killed of $((total - broken)) killed, $survived survived, $broken did not compile"
if ((${#modules[@]} > 0)); then
    # The originals back in the build.
    jpmpi_mvn -o -q install -DskipTests -pl "$(IFS=,; echo "${modules[*]}")" >/dev/null </dev/null
fi
exit "$status"
