#!/usr/bin/env bash
# demo.sh - the README's first command: install what is missing (Debian packages), find a JDK >= 22,
# build jpmpi if it is not built, then run `bin/jpmpi demo`: the halo-exchange demo on 4 MPI ranks
# through jpmpi, with a Java level over a C level, and their report.
#
#   ./demo.sh [--rebuild] [jpmpi demo options: --mpi openmpi|mpich, --np N, -v, -- HALO-ARGS...]
#
# Everything after --rebuild goes to `jpmpi demo` (see bin/jpmpi demo --help).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/scripts/lib.sh"
jpmpi_allow_root

rebuild=0
if [[ "${1:-}" == "--rebuild" ]]; then
    rebuild=1
    shift
fi
jpmpi_ensure_packages || exit 1
jpmpi_find_jdk || exit 1
built=("$JPMPI_ROOT"/dist/target/jpmpi-*/share/jpmpi/java/launcher/jpmpi-tools-entry.jar)
if ((rebuild)) || [[ ! -f "${built[0]}" ]]; then
    jpmpi_log "building jpmpi (./mvnw install -DskipTests): a few minutes the first time"
    jpmpi_mvn -q install -DskipTests || { jpmpi_log "the Maven build failed"; exit 1; }
fi
exec "$JPMPI_ROOT/bin/jpmpi" demo "$@"
