# Code shared by the helper and the frontend: the seccomp policy, the table
# of system directories (sysdirs.c), the cleanup attributes (cleanup.h), the
# run's IPC limits (ipc_limits.c, also in sbx-run-init).
# policy/seccomp.policy is embedded as a C string and compiled with
# libseccomp when sbx is built (seccomp-gen); both programs carry only the
# BPF program that makes (common/seccomp_bpf.c), so neither compiles a policy
# or loads libseccomp at run time.
COMMON_OBJS    := $(BUILD)/common/seccomp_bpf.o $(BUILD)/common/sysdirs.o \
                  $(BUILD)/common/zygote.o $(BUILD)/common/ipc_limits.o
# The compiler, for seccomp-gen, the unit tests and the fuzzer.
POLICY_OBJS    := $(BUILD)/common/seccomp_policy.o
SECCOMP_CFLAGS := $(shell $(PKG_CONFIG) --cflags libseccomp)
SECCOMP_LIBS   := $(shell $(PKG_CONFIG) --libs libseccomp)

# The readable policy becomes a C string, so nothing opens a policy file at
# run time (no path a caller could swap, no parse of a file it could edit).
$(BUILD)/gen/seccomp_policy_text.h: policy/seccomp.policy common/embed.sh
	@mkdir -p $(dir $@)
	sh common/embed.sh sbx_seccomp_policy_text < $< > $@

$(BUILD)/common/seccomp_policy.o: $(BUILD)/gen/seccomp_policy_text.h
$(BUILD)/common/seccomp_policy.o $(BUILD)/common/seccomp_gen.o: ALL_CFLAGS += -I$(BUILD)/gen $(SECCOMP_CFLAGS)

$(BUILD)/seccomp-gen: $(BUILD)/common/seccomp_gen.o $(POLICY_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(SECCOMP_LIBS)

$(BUILD)/gen/seccomp_bpf_insns.h: $(BUILD)/seccomp-gen
	@mkdir -p $(dir $@)
	$(BUILD)/seccomp-gen > $@.tmp && mv $@.tmp $@

$(BUILD)/common/seccomp_bpf.o: $(BUILD)/gen/seccomp_bpf_insns.h
$(BUILD)/common/seccomp_bpf.o: ALL_CFLAGS += -I$(BUILD)/gen

# The warm suites' zygote: one Python program, written as the parts in
# frontend/warm/zygote/ (one responsibility each, run in name order as one
# module) and joined here into $(BUILD)/gen/zygote.py. The frontend sends it
# as `python -c`, the helper's --zygote mode runs it and nothing else.
# tests/helper/zygote.t builds a helper of its own around a probe (ZYGOTE_PY).
# The start appended after the parts (frontend/warm/zygote/boot/compile-apart.py)
# holds them as one raw string, _SBX_ZYGOTE, which it compiles in a child:
# no part may hold three single quotes.
ZYGOTE_PARTS := $(sort $(wildcard frontend/warm/zygote/*.py))
ZYGOTE_BOOT := frontend/warm/zygote/boot/compile-apart.py
ZYGOTE_PY ?= $(BUILD)/gen/zygote.py
$(BUILD)/gen/zygote.py: $(ZYGOTE_PARTS) $(ZYGOTE_BOOT)
	@mkdir -p $(dir $@)
	! grep -l "'''" $(ZYGOTE_PARTS)
	{ printf "_SBX_ZYGOTE = r'''"; for f in $(ZYGOTE_PARTS); do cat "$$f"; echo; echo; done; \
	  echo "'''"; cat $(ZYGOTE_BOOT); } > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/zygote_text.h: $(ZYGOTE_PY) common/embed.sh
	@mkdir -p $(dir $@)
	sh common/embed.sh sbx_zygote_py < $< > $@
$(BUILD)/common/zygote.o: $(BUILD)/gen/zygote_text.h
$(BUILD)/common/zygote.o: ALL_CFLAGS += -I$(BUILD)/gen
