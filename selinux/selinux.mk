# The SELinux policy module for the helper, built with the distribution's
# policy devel Makefile (Debian/Ubuntu: selinux-policy-dev; Fedora/RHEL:
# selinux-policy-devel). The sources are copied to $(BUILD)/selinux so that
# the devel Makefile's tmp/ never lands in the source tree.
SELINUX_DEVEL_MK ?= /usr/share/selinux/devel/Makefile
SELINUX_SRCS := selinux/sbx.te selinux/sbx.fc selinux/sbx.if

.PHONY: selinux selinux-check

selinux: $(BUILD)/selinux/sbx.pp

# The outer make's MAKEFLAGS (PREFIX=..., BUILD=...) would override the
# devel Makefile's own tool paths, so it runs with a clean make environment.
$(BUILD)/selinux/sbx.pp: $(SELINUX_SRCS) selinux/selinux.mk
	@test -f $(SELINUX_DEVEL_MK) || { echo "selinux: $(SELINUX_DEVEL_MK) is missing: install selinux-policy-dev (Debian) or selinux-policy-devel (Fedora)" >&2; exit 1; }
	rm -rf $(BUILD)/selinux
	mkdir -p $(BUILD)/selinux
	cp $(SELINUX_SRCS) $(BUILD)/selinux/
	cd $(BUILD)/selinux && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -f $(SELINUX_DEVEL_MK) sbx.pp
	@echo "selinux: built $@"

# make check builds the module where the devel Makefile exists, and says
# why not elsewhere; in CI (CI=true) a missing devel Makefile is an error.
selinux-check:
	@if [ -f $(SELINUX_DEVEL_MK) ]; then \
		$(MAKE) --no-print-directory selinux; \
	elif [ "$${CI:-}" = true ]; then \
		echo "selinux-check: $(SELINUX_DEVEL_MK) missing in CI: install selinux-policy-dev" >&2; exit 1; \
	else \
		echo "selinux-check: SKIPPED: $(SELINUX_DEVEL_MK) missing (install selinux-policy-dev to build the policy module)"; \
	fi
