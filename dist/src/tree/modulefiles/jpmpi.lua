-- jpmpi ${project.version} for Lmod: share/modulefiles/jpmpi/${project.version}.lua of an installation.
--   module use <prefix>/share/modulefiles     (or MODULEPATH=<prefix>/share/modulefiles)
--   module load jpmpi
-- The same as the Tcl modulefile beside it (Environment Modules); tools-entry/README.md, "Environment modules".
help([[
jpmpi ${project.version}: stack C PMPI tools and Java interceptors in an unmodified MPI program.
  jpmpi run --tools profile -- mpirun -np 4 ./app      the launcher (jpmpi --help)
  mpirun --mca ompi_tools_entry profile ./app          by hand, Open MPI
  mpiexec.hydra -genv JPMPI_TOOLS_ENTRY profile ./app   by hand, MPICH (or JPMPI_TOOLS_ENTRY=... in the environment)
LD_PRELOAD gets lib/libjpmpi-rank-entry.so, which does nothing in a process that is not an MPI rank
with a tool list; in one that is, it starts the rank again with jpmpi's dispatcher for its MPI.]])
whatis("Name: jpmpi")
whatis("Version: ${project.version}")
whatis("Description: MPI profiling-interposition layer (several PMPI tools, C and Java, in one program)")

-- <prefix> from this file's place: <prefix>/share/modulefiles/jpmpi/<version>.lua
local prefix = myFileName():match("^(.*)/share/modulefiles/jpmpi/[^/]*$")
prepend_path("PATH", pathJoin(prefix, "bin"))
prepend_path("LD_PRELOAD", pathJoin(prefix, "lib/libjpmpi-rank-entry.so"))
