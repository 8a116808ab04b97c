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

# HELPER_STATIC=1 links it static-pie: no dynamic loader at its setuid exec
# and smaller forks, 0.4-0.75 ms of CPU less a run (docs/performance.md).
# Only for hosts whose passwd and group come from files: a static glibc
# cannot safely load nss_sss, nss_ldap or nss_systemd for the caller lookup.
# (The link warns about getpwuid/getgrnam for that reason.)
HELPER_LINK := $(if $(filter 1,$(HELPER_STATIC)),$(if $(filter 1,$(SANITIZE)),,-static-pie))
$(BUILD)/sbx-helper: $(HELPER_OBJS) $(COMMON_OBJS) $(BUILD)/helper/link.stamp
	$(CC) $(ALL_LDFLAGS) $(HELPER_LINK) -o $@ $(filter %.o,$^)
$(BUILD)/helper/link.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(HELPER_LINK)' | cmp -s - $@ || echo '$(HELPER_LINK)' > $@

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
