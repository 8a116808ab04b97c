# sbx-run, the unprivileged frontend: a library (everything but main.c, so
# the unit tests link the same code) and a thin CLI. Every .c of frontend/
# and of its folders (two levels deep) is built, found by wildcard, so a new
# folder needs no line here; the zygote's C (frontend/warm/zygote/) is built on
# its own below. Each folder's headers are found by -iquote.
FRONTEND_ZYGOTE   := frontend/warm/zygote
FRONTEND_SRCS     := $(filter-out $(FRONTEND_ZYGOTE)/%,$(wildcard frontend/*.c frontend/*/*.c frontend/*/*/*.c))
FRONTEND_HDRS     := $(filter-out $(FRONTEND_ZYGOTE)/%,$(wildcard frontend/*.h frontend/*/*.h frontend/*/*/*.h))
FRONTEND_DIRS     := $(patsubst %/,%,$(sort $(dir $(FRONTEND_SRCS) $(FRONTEND_HDRS))))
FRONTEND_IQUOTE   := $(FRONTEND_DIRS:%=-iquote %)
FRONTEND_OBJS     := $(FRONTEND_SRCS:%.c=$(BUILD)/%.o)
FRONTEND_OBJS     += $(BUILD)/frontend/warm/run_init_elf.o
FRONTEND_LIB_OBJS := $(filter-out $(BUILD)/frontend/cli/main.o,$(FRONTEND_OBJS))
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

all: $(BUILD)/sbx-run

$(BUILD)/sbx-run: $(FRONTEND_OBJS) $(COMMON_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FRONTEND_LIBS)
