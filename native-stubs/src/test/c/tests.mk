# tests.mk - the tools and programs of the native-stubs tests, included by native-stubs/Makefile
# (which defines IMPLS, MPICC_/MPICXX_/MPIFC_<impl>, SRC, TSRC, OUT, TESTOUT, CFLAGS_COMMON).
# For every installed MPI implementation, into $(TESTOUT)/<impl>/:
#   tools     libloga.so liblogb.so liblogc.so (tools/logtool.c), libself.so (tools/selftool.c),
#             libcount.so libcount2.so (tools/counttool.c): ordinary PMPI tools, built the
#             ordinary way (mpicc -shared), knowing nothing of jpmpi;
#   programs  pingpong (C), pingpong_cxx (C++), pingpong_mpif (Fortran, mpif.h),
#             pingpong_usempi (Fortran, use mpi), threads (MPI_THREAD_MULTIPLE), soak (timed ring
#             traffic), sendloop (one cheap call in a loop), preinit (MPI calls before MPI_Init),
#             hold (a job that stays up until told), exitcode (rank 0 exits with a given status),
#             stubapp
#             (linked with -lmpiprofilesupport against the stub in $(OUT)/stub).
# The Java tests (src/test/java) run them under mpirun / mpiexec.

TEST_CFLAGS := $(CFLAGS_COMMON)
# The C API from C++: the removed MPI-2 C++ bindings that Open MPI's mpi.h would pull in do not
# compile warning-free, and no program uses them.
TEST_CXXFLAGS := -O2 -fPIC -Wall -Wextra -Werror -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1
TEST_FFLAGS := -O2 -Wall
TEST_LOG_NAMES := a b c
TEST_TOOLS := $(foreach n,$(TEST_LOG_NAMES),liblog$(n).so) libself.so libcount.so libcount2.so
TEST_PROGRAMS := pingpong pingpong_cxx pingpong_mpif pingpong_usempi threads stubapp soak sendloop preinit \
  hold exitcode
STUB_DIR := $(abspath $(OUT)/stub)

.PHONY: tests
tests: libs $(foreach i,$(IMPLS),$(addprefix $(TESTOUT)/$(i)/,$(TEST_TOOLS) $(TEST_PROGRAMS))) $(TESTOUT)/layout

# The layouts C shares with the Java runtime, as the compiler makes them (no MPI: the structs are the
# same for every implementation; the first one's generated headers serve).
$(TESTOUT)/layout: $(TSRC)/unit/layout.c $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -I$(SRC)/include -I$(SRC)/core -I$(GEN)/$(firstword $(IMPLS)) -o $@ $<

# $(1) = impl, $(2) = log tool name
define TEST_LOGTOOL
$(TESTOUT)/$(1)/liblog$(2).so: $(TSRC)/tools/logtool.c $(TSRC)/tools/testlog.h
	@mkdir -p $$(@D)
	$(MPICC_$(1)) $(TEST_CFLAGS) -DTOOL_NAME='"$(2)"' -shared -o $$@ $$<
endef

# Programs built from one C file each with no extra flags.
TEST_PLAIN_PROGRAMS := pingpong soak preinit sendloop hold exitcode

# $(1) = impl, $(2) = program
define TEST_PLAIN_PROGRAM
$(TESTOUT)/$(1)/$(2): $(TSRC)/programs/$(2).c
	@mkdir -p $$(@D)
	$(MPICC_$(1)) $(TEST_CFLAGS) -o $$@ $$<
endef

# $(1) = impl
define TEST_BUILD
$(foreach p,$(TEST_PLAIN_PROGRAMS),$(call TEST_PLAIN_PROGRAM,$(1),$(p))
)
$(foreach n,$(TEST_LOG_NAMES),$(call TEST_LOGTOOL,$(1),$(n))
)
$(TESTOUT)/$(1)/libself.so: $(TSRC)/tools/selftool.c $(TSRC)/tools/testlog.h
	@mkdir -p $$(@D)
	$(MPICC_$(1)) $(TEST_CFLAGS) -shared -o $$@ $$<

$(TESTOUT)/$(1)/libcount.so: $(TSRC)/tools/counttool.c
	@mkdir -p $$(@D)
	$(MPICC_$(1)) $(TEST_CFLAGS) -DTOOL_NAME='"count"' -shared -o $$@ $$<

$(TESTOUT)/$(1)/libcount2.so: $(TSRC)/tools/counttool.c
	@mkdir -p $$(@D)
	$(MPICC_$(1)) $(TEST_CFLAGS) -DTOOL_NAME='"count2"' -shared -o $$@ $$<

$(TESTOUT)/$(1)/threads: $(TSRC)/programs/threads.c
	@mkdir -p $$(@D)
	$(MPICC_$(1)) $(TEST_CFLAGS) -pthread -o $$@ $$<

$(TESTOUT)/$(1)/pingpong_cxx: $(TSRC)/programs/pingpong_cxx.cpp
	@mkdir -p $$(@D)
	$(MPICXX_$(1)) $(TEST_CXXFLAGS) -o $$@ $$<

# Fortran: compiled in the output directory so no stray .mod files land in the source tree.
$(TESTOUT)/$(1)/pingpong_mpif: $(TSRC)/programs/pingpong.F90
	@mkdir -p $$(@D)
	$(MPIFC_$(1)) $(TEST_FFLAGS) -J$$(@D) -o $$@ $$<

$(TESTOUT)/$(1)/pingpong_usempi: $(TSRC)/programs/pingpong.F90
	@mkdir -p $$(@D)
	$(MPIFC_$(1)) $(TEST_FFLAGS) -DUSE_MPI_MODULE -J$$(@D) -o $$@ $$<

# Linked against the do-nothing stub, before libmpi (the compiler wrapper appends -lmpi last);
# the rpath finds the stub, LD_LIBRARY_PATH can put a real dispatcher first.
$(TESTOUT)/$(1)/stubapp: $(TSRC)/programs/stubapp.c $(SRC)/include/jpmpi.h $(OUT)/stub/libmpiprofilesupport.so
	@mkdir -p $$(@D)
	$(MPICC_$(1)) $(TEST_CFLAGS) -I$(SRC)/include -o $$@ $$< -L$(STUB_DIR) -Wl,-rpath,$(STUB_DIR) \
	  -Wl,--no-as-needed -lmpiprofilesupport -Wl,--as-needed
endef
$(foreach i,$(IMPLS),$(eval $(call TEST_BUILD,$(i))))
