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
