#!/usr/bin/env bash
# test.sh - the jpmpi test command: install/check prerequisites, pick a JDK >= 22,
# then run the whole Maven reactor through `verify`. Extra arguments go to Maven,
# e.g. ./test.sh -pl layering -am   or   ./test.sh -Dtest=SomeTest
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/scripts/lib.sh"
jpmpi_allow_root

jpmpi_ensure_packages || exit 1
# Both MPIs are installed now: a run that finds one missing must fail, not test half (MpiRun).
export JPMPI_TEST_MPIS=openmpi,mpich
jpmpi_find_jdk || exit 1
# The multi-host tests (scripts/cluster.sh) bring the test cluster up and take it down themselves;
# should their JVM die first, this takes down whatever is left, unless a cluster was up before (a
# developer's, which stays).
cluster_was_up=1
if [[ "$(id -u)" -eq 0 ]] && ! "$JPMPI_ROOT/scripts/cluster.sh" status >/dev/null 2>&1; then
    cluster_was_up=0
fi
cluster_down() {
    if ((cluster_was_up == 0)); then
        "$JPMPI_ROOT/scripts/cluster.sh" down 2>/dev/null
    fi
}
trap cluster_down EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
status=0
jpmpi_mvn verify "$@" || status=$?
# What ran, what failed, every skip and its reason.
"$JPMPI_ROOT/scripts/test-summary.sh" "$JPMPI_ROOT"
exit "$status"
