# sbx-run, the unprivileged frontend: one folder per layer (frontend/README.md
# draws them). The faces on top, cli/ (sbx-run's command line) and serve/
# (--serve), call libsbx.a, a static archive of every folder below them
# and common/, through its public headers (LIBSBX_PUBLIC_HEADERS); the unit
# tests and the fuzzers link the same archive. Every .c of frontend/'s
# folders (three levels deep: suites/io/formats/) is built, found by wildcard, so that a new
# folder needs no line here (frontend/layout.py gives it its place in the
# layers); the zygote's C (frontend/warm/zygote/) is built on its own
# below. Each folder's headers are found by -iquote.
FRONTEND_ZYGOTE   := frontend/warm/zygote
FRONTEND_SRCS     := $(filter-out $(FRONTEND_ZYGOTE)/% frontend/serve/http/%,$(wildcard frontend/*/*.c frontend/*/*/*.c frontend/*/*/*/*.c))
FRONTEND_HDRS     := $(filter-out $(FRONTEND_ZYGOTE)/%,$(wildcard frontend/*/*.h frontend/*/*/*.h frontend/*/*/*/*.h))
FRONTEND_DIRS     := $(patsubst %/,%,$(sort $(dir $(FRONTEND_SRCS) $(FRONTEND_HDRS))))
FRONTEND_IQUOTE   := $(FRONTEND_DIRS:%=-iquote %)
FRONTEND_FACES    := frontend/cli frontend/serve
FACE_SRCS         := $(filter $(FRONTEND_FACES:=/%),$(FRONTEND_SRCS))
LIBSBX_SRCS       := $(filter-out $(FACE_SRCS),$(FRONTEND_SRCS))
FACE_OBJS         := $(FACE_SRCS:%.c=$(BUILD)/%.o)
LIBSBX_OBJS       := $(LIBSBX_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/frontend/warm/run_init_elf.o
FRONTEND_OBJS     := $(FACE_OBJS) $(LIBSBX_OBJS)
LIBSBX            := $(BUILD)/libsbx.a
# The faces' code but main(), for the unit tests of the options and the
# request parser.
FACE_LIB_OBJS     := $(filter-out $(BUILD)/frontend/cli/main.o,$(FACE_OBJS))
# What the faces may include of the library: each layer's contract
# (frontend/layout.py checks). The rest (sandbox_impl.h, run_internal.h,
# tier_ops.h, warm.h, interp.h, ...) is the library's own.
LIBSBX_PUBLIC_HEADERS := util/err.h util/util.h util/output.h util/trace.h util/proc.h \
        util/strbuf.h util/sha256.h util/encoding.h \
        sandbox/sandbox.h sandbox/limit.h sandbox/sched.h sandbox/stop_signals.h \
        sandbox/tiers/tier.h sandbox/tiers/run_result.h \
        results/results.h results/passk.h results/verdict.h results/suite_summary.h \
        suites/suite.h suites/suite_ops.h suites/suite_score.h suites/suite_info.h \
        suites/driver/driver.h suites/evalplus/evalplus.h \
        lang/lang.h lang/lang_run.h
# zlib: the suite layer reads .jsonl.gz problem files. Linked in where its
# archive is installed (Debian's zlib1g-dev): one shared library less to map
# and relocate at every sbx-run start, 0.1 ms of CPU (docs/performance.md).
# A zlib security update then needs a rebuild. libcjson ships no archive,
# and a static libm needs the static libc.
FRONTEND_ZLIB_A   := $(shell $(CC) -print-file-name=libz.a)
FRONTEND_LIBS     := $(shell $(PKG_CONFIG) --libs libcjson) \
                     $(if $(filter /%,$(FRONTEND_ZLIB_A)),$(FRONTEND_ZLIB_A),$(shell $(PKG_CONFIG) --libs zlib)) -lm
FRONTEND_CFLAGS   := $(shell $(PKG_CONFIG) --cflags libcjson zlib)

# The installed helper's path, fixed at build time; SBX_HELPER in the
# environment overrides it (sbx-run is unprivileged: that is the user's call).
$(FRONTEND_OBJS): ALL_CFLAGS += $(FRONTEND_CFLAGS) $(FRONTEND_IQUOTE) \
        -DSBX_HELPER_PATH='"$(HELPER_PATH)"' \
        -DSBX_SUITES_DIR='"$(DATADIR)/suites"'
# Rebuilt when an installation path changes (GNUmakefile's config stamp).
$(FRONTEND_OBJS): $(CONFIG_STAMP)

# The evalplus driver is a Python file of its own, embedded as a C string.
$(BUILD)/gen/evalplus_driver_text.h: frontend/suites/evalplus/evalplus_driver.py common/embed.sh
	@mkdir -p $(dir $@)
	sh common/embed.sh evalplus_driver_py < $< > $@
$(BUILD)/frontend/suites/evalplus/evalplus_driver.o: $(BUILD)/gen/evalplus_driver_text.h
$(BUILD)/frontend/suites/evalplus/evalplus_driver.o: ALL_CFLAGS += -I$(BUILD)/gen
# So is the suite driver (script and classeval modes).
$(BUILD)/gen/driver_text.h: frontend/suites/driver/driver.py common/embed.sh
	@mkdir -p $(dir $@)
	sh common/embed.sh driver_py < $< > $@
$(BUILD)/frontend/suites/driver/driver.o: $(BUILD)/gen/driver_text.h
$(BUILD)/frontend/suites/driver/driver.o: ALL_CFLAGS += -I$(BUILD)/gen

# And the io suites' runner (io_runner.py).
$(BUILD)/gen/io_runner_text.h: frontend/suites/io/io_runner.py common/embed.sh
	@mkdir -p $(dir $@)
	sh common/embed.sh io_runner_py < $< > $@
$(BUILD)/frontend/suites/io/io_runner.o: $(BUILD)/gen/io_runner_text.h
$(BUILD)/frontend/suites/io/io_runner.o: ALL_CFLAGS += -I$(BUILD)/gen

# sbx-run-init (frontend/warm/zygote/init/): a warm run's pid 1, which each
# zygote spawns inside its tier's sandbox from the bytes sbx-run carries
# (run_init_elf.S): static, for no library need be there, and hardened as a
# release build even in the sanitizer build (a sanitizer runtime needs the
# dynamic loader).
RUN_INIT_SRCS := $(sort $(wildcard frontend/warm/zygote/init/*.c)) common/ipc_limits.c
$(BUILD)/sbx-run-init: $(RUN_INIT_SRCS) frontend/warm/zygote/init/run_init.h common/cleanup.h common/ipc_limits.h
	@mkdir -p $(dir $@)
	$(CC) $(RELEASE_CFLAGS) $(COMMON_CPPFLAGS) $(CFLAGS) -static-pie -s $(RELRO_LDFLAGS) -o $@ $(RUN_INIT_SRCS)
# The warm candidate's confinement (frontend/warm/zygote/candidate/): flat,
# freestanding bytes the zygote maps and only C calls, so the build checks
# what the format assumes: the entry at 0, no relocation, no undefined
# symbol, nothing writable.
CANDIDATE_CFLAGS := -O2 $(WARN_CFLAGS) -ffreestanding -nostdlib -fPIE -fvisibility=hidden \
                    -fstack-protector-strong -fcf-protection -fno-asynchronous-unwind-tables \
                    -fno-unwind-tables -fno-jump-tables
# flat_code OUT.bin, SOURCE.c (tests/tests.mk builds its probe with it too)
define flat_code
	@mkdir -p $(dir $(1))
	$(CC) $(CANDIDATE_CFLAGS) -c -o $(1:.bin=.o) $(2)
	$(CC) -nostdlib -static -Wl,--no-dynamic-linker -Wl,-T,frontend/warm/zygote/candidate/candidate.lds \
		-Wl,--build-id=none -o $(1:.bin=.elf) $(1:.bin=.o)
	test -z "$$(nm -u $(1:.bin=.elf))"
	test "$$(nm $(1:.bin=.elf) | awk '$$3 == "candidate_confine" { print $$1 }')" = 0000000000000000
	readelf -r $(1:.bin=.elf) | grep -q 'There are no relocations'
	test -z "$$(size -A $(1:.bin=.elf) | awk '$$2 != 0 && $$1 !~ /^\.(text|rodata)$$/ && $$1 != "Total" && NR > 2')"
	objcopy -O binary -j .text -j .rodata $(1:.bin=.elf) $(1)
endef
$(BUILD)/candidate.bin: frontend/warm/zygote/candidate/candidate.c frontend/warm/zygote/candidate/candidate.h \
                        frontend/warm/zygote/candidate/raw_syscall.h \
                        frontend/warm/zygote/candidate/candidate.lds
	$(call flat_code,$@,$<)
$(BUILD)/frontend/warm/run_init_elf.o: frontend/warm/run_init_elf.S $(BUILD)/sbx-run-init $(BUILD)/candidate.bin
	@mkdir -p $(dir $@)
	$(CC) -c -DRUN_INIT_PATH='"$(BUILD)/sbx-run-init"' -DCANDIDATE_PATH='"$(BUILD)/candidate.bin"' -o $@ $<

$(LIBSBX): $(LIBSBX_OBJS) $(COMMON_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

all: $(BUILD)/sbx-run

$(BUILD)/sbx-run: $(FACE_OBJS) $(LIBSBX)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FRONTEND_LIBS)

# The layers, their order, the public headers and the sizes of files and
# folders (frontend/layout.py; mutation-checked: an upward call fails it).
.PHONY: frontend-layout-check
frontend-layout-check: $(FRONTEND_OBJS)
	LIBSBX_PUBLIC_HEADERS="$(LIBSBX_PUBLIC_HEADERS)" python3 frontend/layout.py $(BUILD)
check: frontend-layout-check

# The HTTP server (sbx-http) and sbx-run's --http hook.
include frontend/serve/http/http.mk
