# Fuzzing (libFuzzer, clang): every parser of untrusted or semi-trusted
# input. `make fuzz` builds each target with
# -fsanitize=fuzzer,address,undefined and runs it for FUZZ_SECONDS;
# `make check` replays fuzz/corpus/<target>/ (seeds and every input that
# once crashed) through the same targets built with the normal compiler
# and ASan/UBSan, so the regressions need no clang.

FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_OBJDIR  := $(FUZZ_DIR)/obj

# One target per fuzz/fuzz_<name>.c; FUZZ_SRCS_<name> below lists the code
# it exercises.
FUZZ_TARGETS := seccomp_policy jsonl suite_load classeval_extract custom_suite template \
                results driver cluster_env helper_request helper_config serve_request \
                io_row io_pickle io_compare http_run_code

# -iquote, not -I: frontend/sandbox/sched.h (the scheduler) must not stand in for
# <sched.h> in files outside frontend/.
FUZZ_CFLAGS := -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Wno-unused-parameter \
               -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
               $(COMMON_CPPFLAGS) $(FRONTEND_IQUOTE) -iquote helper -iquote fuzz -I$(BUILD)/gen \
               -DSBX_HELPER_PATH='"$(HELPER_PATH)"' -DSBX_HELPER_CONF_PATH='"$(HELPER_CONF)"' \
               $(FRONTEND_CFLAGS)
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined

# The code under test: libsbx, the library sbx-run and the unit tests link,
# compiled again with clang and the fuzzer's coverage instrumentation into
# an archive of its own (a separate tree: the flags differ); each target
# links it, and the few files of its own it needs besides (a face's parser,
# the suite targets' stand-ins for the sandbox), so that only what a target
# reaches is linked. The helper's parsers link the helper's files.
FUZZ_LIBSBX      := $(FUZZ_DIR)/libsbx.a
FUZZ_LIBSBX_SRCS := $(LIBSBX_SRCS) common/seccomp_bpf.c common/sysdirs.c common/zygote.c
FUZZ_SUITE_SRCS  := fuzz/fuzz_suite_stubs.c
FUZZ_SRCS_seccomp_policy    := common/seccomp_policy.c
FUZZ_SRCS_jsonl             := $(FUZZ_SUITE_SRCS)
FUZZ_SRCS_suite_load        := $(FUZZ_SUITE_SRCS)
FUZZ_SRCS_custom_suite      := $(FUZZ_SUITE_SRCS)
FUZZ_SRCS_template          := $(FUZZ_SUITE_SRCS)
FUZZ_SRCS_classeval_extract :=
FUZZ_SRCS_driver            :=
FUZZ_SRCS_cluster_env       := frontend/cli/cluster_env.c
FUZZ_SRCS_results           := $(FUZZ_SUITE_SRCS)
FUZZ_SRCS_helper_request    := helper/request.c helper/util.c common/zygote.c
FUZZ_SRCS_helper_config     := helper/config.c helper/request.c helper/util.c common/zygote.c
FUZZ_SRCS_serve_request     := frontend/serve/serve_request.c
# The input/output problems' readers (frontend/suites/io/) are in libsbx.
FUZZ_SRCS_io_row            :=
FUZZ_SRCS_io_pickle         :=
FUZZ_SRCS_io_compare        :=
# The targets that link libsbx (the helper's and the policy compiler's do not).
FUZZ_LIBSBX_TARGETS := jsonl suite_load classeval_extract custom_suite template results \
                       driver cluster_env serve_request io_row io_pickle io_compare http_run_code
FUZZ_SRCS_http_run_code     := frontend/serve/http/http_sf.c frontend/serve/http/http_files.c
FUZZ_LIBS := $(FRONTEND_LIBS) $(SECCOMP_LIBS) -lz

$(FUZZ_OBJDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_OBJDIR)/common/seccomp_policy.o: $(BUILD)/gen/seccomp_policy_text.h
$(FUZZ_OBJDIR)/frontend/suites/driver/driver.o: $(BUILD)/gen/driver_text.h
$(FUZZ_OBJDIR)/frontend/suites/evalplus/evalplus_driver.o: $(BUILD)/gen/evalplus_driver_text.h
$(FUZZ_OBJDIR)/frontend/suites/io/io_runner.o: $(BUILD)/gen/io_runner_text.h
$(FUZZ_OBJDIR)/common/zygote.o: $(BUILD)/gen/zygote_text.h
$(FUZZ_OBJDIR)/common/seccomp_bpf.o: $(BUILD)/gen/seccomp_bpf_insns.h

# With the normal build's run_init_elf.o (sbx-run-init's bytes, data only):
# no target reaches the warm path, but the suite kinds that run samples
# over several runs (io, the compiled languages) link the sandbox's code,
# which refers to them.
$(FUZZ_LIBSBX): $(FUZZ_LIBSBX_SRCS:%.c=$(FUZZ_OBJDIR)/%.o) $(BUILD)/frontend/warm/run_init_elf.o
	@rm -f $@
	$(AR) rcs $@ $^

# $$ in prerequisites: expanded a second time per target (secondary
# expansion), so each target gets its own list.
.SECONDEXPANSION:
$(FUZZ_TARGETS:%=$(FUZZ_DIR)/bin/%): $(FUZZ_DIR)/bin/%: $(FUZZ_OBJDIR)/fuzz/fuzz_%.o \
		$(FUZZ_OBJDIR)/fuzz/fuzz_input.o \
		$$(addprefix $(FUZZ_OBJDIR)/,$$(FUZZ_SRCS_$$*:.c=.o)) \
		$$(if $$(filter $$*,$(FUZZ_LIBSBX_TARGETS)),$(FUZZ_LIBSBX))
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(FUZZ_LIBS)

.PHONY: fuzz fuzz-build fuzz-check fuzz-replay fuzz-toolchain
fuzz-build: fuzz-toolchain $(FUZZ_TARGETS:%=$(FUZZ_DIR)/bin/%)

# libFuzzer ships with clang's runtime (Debian: clang and libclang-rt-14-dev).
fuzz-toolchain:
	@printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' | \
		$(FUZZ_CC) -x c -fsanitize=fuzzer,address,undefined -o /dev/null - 2>/dev/null || \
		{ echo "fuzz: $(FUZZ_CC) cannot build libFuzzer targets: install clang and libclang-rt-14-dev" >&2; exit 1; }

# New corpus entries go to $(FUZZ_DIR)/work/<target>, never into the
# source tree; fuzz/corpus/<target> is read as seeds. A crash leaves its
# input in $(FUZZ_DIR)/artifacts/<target>/: once fixed, copy it into
# fuzz/corpus/<target>/ so make check replays it from then on.
# One make target per fuzz target, so `make -j2 fuzz` runs two at a time.
fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)
	@echo "fuzz: $(FUZZ_TARGETS): no crash in $(FUZZ_SECONDS) s each"

fuzz-run-%: $(FUZZ_DIR)/bin/% | fuzz-toolchain
	@mkdir -p $(FUZZ_DIR)/work/$* $(FUZZ_DIR)/artifacts/$*
	@echo "fuzz: $* for $(FUZZ_SECONDS) s"
	@LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp $(FUZZ_DIR)/bin/$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/$*/ \
		$(FUZZ_DIR)/work/$* fuzz/corpus/$* > $(FUZZ_DIR)/$*.log 2>&1 || \
		{ tail -40 $(FUZZ_DIR)/$*.log; echo "fuzz: $* found a crash: $(FUZZ_DIR)/artifacts/$*/" >&2; exit 1; }
	@grep -E '^stat::number_of_executed_units' $(FUZZ_DIR)/$*.log | sed 's/^/fuzz: $*: /'

# ---- regression replay, with the normal compiler (make check) ----
FUZZ_REPLAY_DIR := $(BUILD)/fuzz/replay
$(BUILD)/fuzz/%.o: ALL_CFLAGS += $(FRONTEND_IQUOTE) -iquote helper -iquote fuzz $(FRONTEND_CFLAGS)

$(FUZZ_TARGETS:%=$(FUZZ_REPLAY_DIR)/%): $(FUZZ_REPLAY_DIR)/%: $(BUILD)/fuzz/fuzz_%.o \
		$(BUILD)/fuzz/fuzz_input.o $(BUILD)/fuzz/standalone_main.o \
		$$(addprefix $(BUILD)/,$$(FUZZ_SRCS_$$*:.c=.o)) \
		$$(if $$(filter $$*,$(FUZZ_LIBSBX_TARGETS)),$(LIBSBX))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(FUZZ_LIBS)

# Every built target must have a corpus: a target without one would
# replay nothing and pass.
fuzz-replay: $(FUZZ_TARGETS:%=$(FUZZ_REPLAY_DIR)/%)
	@set -e; for t in $(FUZZ_TARGETS); do \
		test -d fuzz/corpus/$$t || { echo "fuzz-replay: fuzz/corpus/$$t is missing" >&2; exit 1; }; \
		$(FUZZ_REPLAY_DIR)/$$t fuzz/corpus/$$t; \
	done

fuzz-check:
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(MAKE) --no-print-directory SANITIZE=1 BUILD=$(BUILD)/asan fuzz-replay
