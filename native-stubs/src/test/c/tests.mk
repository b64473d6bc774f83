# tests.mk - the test program of the native-stubs tests that this module builds itself, included by
# native-stubs/Makefile (which defines IMPLS, MPICC_<impl>, SRC, TSRC, OUT, TESTOUT, CFLAGS_COMMON).
# For every installed MPI implementation, into $(TESTOUT)/<impl>/:
#   stubapp   linked with -lmpiprofilesupport against the stub in $(OUT)/stub (StubLinkIT).
# And, once, the dispatcher of the first one compiled the portable way (-DJPMPI_ENTRY_C: the C hot part
# for every function, as on a machine other than x86-64, jpmpi_core.h), so that form keeps compiling
# without a warning where nothing here builds it otherwise.
# The other test programs and tools are test-support's (test-support/Makefile).

STUB_DIR := $(abspath $(OUT)/stub)

.PHONY: tests
tests: libs $(foreach i,$(IMPLS),$(TESTOUT)/$(i)/stubapp) $(TESTOUT)/layout $(TESTOUT)/entry-c.o

$(TESTOUT)/entry-c.o: $(GEN)/$(firstword $(IMPLS))/jpmpi_dispatch.c $(CORE_HDR) $(GEN)/$(firstword $(IMPLS))/jpmpi_slots.h
	@mkdir -p $(@D)
	$(MPICC_$(firstword $(IMPLS))) $(CFLAGS_COMMON) -fvisibility=hidden -DJPMPI_ENTRY_C -I$(SRC)/include -I$(SRC)/core \
	  -I$(GEN) -I$(GEN)/$(firstword $(IMPLS)) $(JNI_CFLAGS) -c -o $@ $<

# The layouts C shares with the Java runtime, as the compiler makes them (no MPI: the structs are the
# same for every implementation; the first one's generated headers serve). layering's
# BridgeLayoutTest runs it.
$(TESTOUT)/layout: $(TSRC)/unit/layout.c $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -I$(SRC)/include -I$(SRC)/core -I$(GEN)/$(firstword $(IMPLS)) -o $@ $<

# Linked against the do-nothing stub, before libmpi (the compiler wrapper appends -lmpi last);
# the rpath finds the stub, LD_LIBRARY_PATH can put a real dispatcher first.
define TEST_BUILD
$(TESTOUT)/$(1)/stubapp: $(TSRC)/programs/stubapp.c $(SRC)/include/jpmpi.h $(OUT)/stub/libmpiprofilesupport.so
	@mkdir -p $$(@D)
	$(MPICC_$(1)) $(CFLAGS_COMMON) -I$(SRC)/include -o $$@ $$< -L$(STUB_DIR) -Wl,-rpath,$(STUB_DIR) \
	  -Wl,--no-as-needed -lmpiprofilesupport -Wl,--as-needed
endef
$(foreach i,$(IMPLS),$(eval $(call TEST_BUILD,$(i))))
