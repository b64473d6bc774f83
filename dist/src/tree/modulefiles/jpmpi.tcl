#%Module1.0
## jpmpi ${project.version} for Environment Modules: share/modulefiles/jpmpi/${project.version} of an
## installation.
##   module use <prefix>/share/modulefiles     (or MODULEPATH=<prefix>/share/modulefiles)
##   module load jpmpi
## The same as the Lua modulefile beside it (Lmod); tools-entry/README.md, "Environment modules".

proc ModulesHelp {} {
    puts stderr "jpmpi: stack C PMPI tools and Java interceptors in an unmodified MPI program."
    puts stderr "  jpmpi run --tools profile -- mpirun -np 4 ./app      the launcher (jpmpi --help)"
    puts stderr "  mpirun --mca ompi_tools_entry profile ./app          by hand, Open MPI"
    puts stderr "  mpiexec.hydra -genv JPMPI_TOOLS_ENTRY profile ./app   by hand, MPICH"
    puts stderr "LD_PRELOAD gets lib/libjpmpi-rank-entry.so, which does nothing in a process that is not an MPI"
    puts stderr "rank with a tool list; in one that is, it starts the rank again with jpmpi's dispatcher."
}
module-whatis "jpmpi: MPI profiling-interposition layer (several PMPI tools, C and Java, in one program)"

# <prefix> from this file's place: <prefix>/share/modulefiles/jpmpi/<version>.
set jpmpi_prefix [file normalize $ModulesCurrentModulefile]
for {set i 0} {$i < 4} {incr i} {
    set jpmpi_prefix [file dirname $jpmpi_prefix]
}
prepend-path PATH $jpmpi_prefix/bin
prepend-path LD_PRELOAD $jpmpi_prefix/lib/libjpmpi-rank-entry.so
