# Tests: cmocka unit tests (tests/unit), the escape prober, and `make check`.
#
# tests/unit/helper_*.c   link with the helper's objects (all but main's)
# tests/unit/frontend_*.c link with libsbx.a and the faces' code but main()
# Each is its own program with a main(); new files are picked up by wildcard,
# and the part's variables may still be empty while that part is written.

CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

UNIT_HELPER_SRCS   := $(wildcard tests/unit/helper_*.c)
UNIT_FRONTEND_SRCS := $(wildcard tests/unit/frontend_*.c)
UNIT_HELPER_BINS   := $(UNIT_HELPER_SRCS:%.c=$(BUILD)/%)
UNIT_FRONTEND_BINS := $(UNIT_FRONTEND_SRCS:%.c=$(BUILD)/%)
UNIT_BINS          := $(UNIT_HELPER_BINS) $(UNIT_FRONTEND_BINS)

$(BUILD)/tests/unit/%.o: ALL_CFLAGS += $(CMOCKA_CFLAGS) $(SECCOMP_CFLAGS) -Ihelper $(FRONTEND_IQUOTE)

# The policy compiler too: helper_seccomp checks the built-in program against it.
$(UNIT_HELPER_BINS): $(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(HELPER_LIB_OBJS) $(COMMON_OBJS) $(POLICY_OBJS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(SECCOMP_LIBS) $(CMOCKA_LIBS)

# frontend_http*: the HTTP layer (frontend/serve/http/http.mk) too, before the
# archive it calls into.
UNIT_HTTP_BINS := $(filter $(BUILD)/tests/unit/frontend_http%,$(UNIT_FRONTEND_BINS))
$(filter-out $(UNIT_HTTP_BINS),$(UNIT_FRONTEND_BINS)): $(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(FACE_LIB_OBJS) $(LIBSBX)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(FRONTEND_LIBS) $(CMOCKA_LIBS)
$(UNIT_HTTP_BINS): $(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(HTTP_LIB_OBJS) $(FACE_LIB_OBJS) $(LIBSBX)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(FRONTEND_LIBS) $(HTTP_LIBS) $(CMOCKA_LIBS)
$(UNIT_HTTP_BINS:%=%.o): ALL_CFLAGS += -iquote frontend/serve/http

# frontend_sched runs sched_run on fake runs: the linker sends sched.c's
# calls to the run API to the test's __wrap_ functions.
SCHED_FAKES := sbx_run_pollfds sbx_run_deadline_ms sbx_run_step sbx_run_finish sbx_run_kill
$(BUILD)/tests/unit/frontend_sched: ALL_LDFLAGS += $(SCHED_FAKES:%=-Wl,--wrap=%)

# The seccomp prober the escape tests run inside the sandbox (one syscall
# per run, exit status = errno). Plain -O2: it issues raw syscalls on purpose.
TRY_SYSCALL := $(BUILD)/tests/escape/try-syscall
$(TRY_SYSCALL): $(BUILD)/tests/escape/try-syscall.o
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^

# The seccomp program as bytes, for the zygote's init message in
# tests/warm (zygote_client.py sends it as sbx-run would).
WRITE_BPF := $(BUILD)/tests/warm/write-bpf
# Stand-ins for the candidate's confinement: one that reports its
# capabilities, one that fails at a step without a line of its own.
CANDIDATE_PROBE := $(BUILD)/tests/warm/candidate-probe.bin
CANDIDATE_FAILS := $(BUILD)/tests/warm/candidate-fails.bin
$(CANDIDATE_PROBE) $(CANDIDATE_FAILS): $(BUILD)/tests/warm/%.bin: tests/warm/%.c \
                    frontend/warm/zygote/candidate/candidate.h frontend/warm/zygote/candidate/raw_syscall.h \
                    frontend/warm/zygote/candidate/candidate.lds
	$(call flat_code,$@,$<)
# A stand-in for sbx-run-init that reports its capabilities (static, as
# sbx-run-init: it is exec'd inside the zygote's sandbox).
INIT_PROBE := $(BUILD)/tests/warm/init-probe
$(INIT_PROBE): tests/warm/init-probe.c
	@mkdir -p $(dir $@)
	$(CC) $(RELEASE_CFLAGS) $(COMMON_CPPFLAGS) -static-pie $(RELRO_LDFLAGS) -o $@ $<
$(WRITE_BPF): $(BUILD)/tests/warm/write-bpf.o $(COMMON_OBJS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^
# A caller of the run engine alone (libsbx), for tests/frontend/stdin.t:
# a run spec's stdin and stdout options, cold and warm.
RUN_ENGINE := $(BUILD)/tests/frontend/run-engine
$(BUILD)/tests/frontend/%.o: ALL_CFLAGS += $(FRONTEND_IQUOTE) $(FRONTEND_CFLAGS)
$(RUN_ENGINE): $(BUILD)/tests/frontend/run-engine.o $(LIBSBX)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(FRONTEND_LIBS)

.PHONY: unit unit-tests run-unit integration check check-full
unit-tests: $(UNIT_BINS) $(TRY_SYSCALL) $(WRITE_BPF) $(CANDIDATE_PROBE) $(CANDIDATE_FAILS) $(INIT_PROBE) \
            $(RUN_ENGINE)

# Runs every unit test program of $(BUILD); a missing cmocka fails the build
# above, it is never skipped.
run-unit: unit-tests
	@set -e; n=0; for t in $(UNIT_BINS); do \
		echo "unit: $$t"; $$t; n=$$((n + 1)); \
	done; echo "unit: $$n programs passed in $(BUILD)"

unit: run-unit

# The integration tests in two sets. `make check` runs the quick one (every
# .t but those below, on the data sbx ships); `make check-full` (CI runs
# both) the long ones: whole benchmarks, the real model outputs and
# ClassEval from $SBX_TEST_DATA, the helper and escape tests re-run on a
# simulated host without user namespaces, Slurm. A new .t is in the quick
# set unless listed here. Chosen by `prove --timer`, one at a time, on 2
# cores shared with other builds (load about 10): these took 45-170 s each
# (humanevalplus 126 s, no-userns-rerun 168 s), the other 36 took 5.9 min
# together, the slowest 45 s.
FULL_TESTS := tests/suites/humaneval.t tests/suites/humanevalplus.t \
              tests/suites/codegen_subset.t tests/suites/ldb_solution.t \
              tests/suites/classeval.t tests/hardened/no-userns-rerun.t \
              tests/slurm/slurm.t tests/suites/warm_full.t tests/lang/humanevalx_full.t \
              tests/suites/io_fidelity_lcb.t
INTEGRATION_TESTS := $(foreach a,helper escape frontend lang warm suites python serve hardened slurm,$(sort $(wildcard tests/$(a)/*.t)))
CHECK_TESTS := $(filter-out $(FULL_TESTS),$(INTEGRATION_TESTS))
# Run alone, before the others run PROVE_JOBS at a time: fork bombs (the
# test user's process count is shared by all its runs, and rlimit mode
# counts the caller's processes), kill(-1) as the test user, and -j at its
# ceiling (256 runs of the test user at once); escape/warm.t has a fork bomb
# and kill(-1) too; escape/warm_caller_limits.t runs a warm suite under a
# caller's hard nproc of 40, which every process of the test user counts
# against (another test's -j4 suite beside it could make its forks fail);
# escape/semaphores.t reads the host's MemAvailable around a flood;
# serve/http.t and serve/verl.t keep HTTP servers with zygotes of the test
# user up for tens of seconds, which suites/warm.t, counting the test
# user's zygotes, would count as its own.
SERIAL_TESTS := tests/escape/bombs.t tests/escape/signals.t tests/escape/daemon.t \
                tests/frontend/hostile.t tests/hardened/no-userns-helper.t \
                tests/hardened/pids-cgroup.t tests/suites/jobs_ceiling.t \
                tests/escape/warm.t tests/escape/warm_caller_limits.t \
                tests/escape/semaphores.t tests/escape/native.t tests/serve/http.t tests/serve/verl.t
PROVE_JOBS ?= 2

integration: all $(TRY_SYSCALL) $(WRITE_BPF) $(CANDIDATE_PROBE) $(INIT_PROBE)
	+BUILD=$(BUILD) tests/run-integration.sh

# Everything, in order: the normal tree, the ASan/UBSan tree, the unit tests
# in both, then the quick integration tests as root against a setuid helper.
# Every test and bench script parses (bash -n): a long test that only
# check-full runs must not first fail in CI on a quote.
SHELL_SCRIPTS = $(wildcard tests/*/*.t tests/*/*.sh tests/lib/*.sh bench/*.sh bench/lib/*.sh .ci/run)
.PHONY: check-syntax
check-syntax:
	@set -e; for f in $(SHELL_SCRIPTS); do bash -n "$$f"; done; \
		echo "check-syntax: $(words $(SHELL_SCRIPTS)) scripts parse"

check: check-syntax all unit-tests
	$(MAKE) SANITIZE=1 BUILD=$(BUILD)/asan all unit-tests
	$(MAKE) BUILD=$(BUILD) run-unit
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		$(MAKE) SANITIZE=1 BUILD=$(BUILD)/asan run-unit
	+BUILD=$(BUILD) TESTS="$(CHECK_TESTS)" SERIAL_TESTS="$(SERIAL_TESTS)" \
		PROVE_JOBS=$(PROVE_JOBS) tests/run-integration.sh

# The long tests (valgrind ran in `make check`). They need $SBX_TEST_DATA
# (default ../shared/suites) for the data sbx does not ship, and skip,
# saying so, without it.
check-full: all $(TRY_SYSCALL) $(WRITE_BPF) $(CANDIDATE_PROBE) $(INIT_PROBE)
	+BUILD=$(BUILD) TESTS="$(FULL_TESTS)" SBX_VALGRIND=0 PROVE_JOBS=1 tests/run-integration.sh
