# sbx-helper: the setuid part. Installed by install.mk (mode 4755, root).
HELPER_SRCS := $(wildcard helper/*.c)
HELPER_OBJS := $(HELPER_SRCS:%.c=$(BUILD)/%.o)
HELPER_LIB_OBJS := $(filter-out $(BUILD)/helper/main.o,$(HELPER_OBJS))

# The config path is compiled in: no caller can point the helper elsewhere.
# A stamp file holds it, so changing HELPER_CONF rebuilds config.o.
$(BUILD)/helper/conf-path.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(HELPER_CONF)' | cmp -s - $@ || echo '$(HELPER_CONF)' > $@
$(BUILD)/helper/config.o: $(BUILD)/helper/conf-path.stamp
$(HELPER_OBJS): ALL_CFLAGS += -DSBX_HELPER_CONF_PATH='"$(HELPER_CONF)"'

$(BUILD)/sbx-helper: $(HELPER_OBJS) $(COMMON_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

all: $(BUILD)/sbx-helper
.PHONY: FORCE
FORCE:

# DESIGN.md: the privileged code stays under 2,000 lines, to be audited in an
# afternoon; make check fails the change that crosses it.
HELPER_MAX_LINES := 2000
.PHONY: helper-size-check
helper-size-check:
	@n=$$(cat helper/*.c helper/*.h | wc -l); \
	[ $$n -lt $(HELPER_MAX_LINES) ] || { echo "helper-size-check: helper/ is $$n lines, the limit is under $(HELPER_MAX_LINES)" >&2; exit 1; }; \
	echo "helper-size-check: ok (helper/ is $$n lines, under $(HELPER_MAX_LINES))"
check: helper-size-check
