# Code shared by the helper and the frontend: the seccomp policy, embedded
# from policy/seccomp.policy at build time and compiled with libseccomp.
COMMON_SRCS := $(wildcard common/*.c)
COMMON_OBJS := $(COMMON_SRCS:%.c=$(BUILD)/%.o)

# The readable policy becomes a C string, so the helper never opens a policy
# file at run time (no path a caller could swap, no parse of a file it could edit).
$(BUILD)/gen/seccomp_policy_text.h: policy/seccomp.policy common/embed.sh
	@mkdir -p $(dir $@)
	sh common/embed.sh sbx_seccomp_policy_text < $< > $@

$(BUILD)/common/seccomp_policy.o: $(BUILD)/gen/seccomp_policy_text.h
$(BUILD)/common/seccomp_policy.o: ALL_CFLAGS += -I$(BUILD)/gen
