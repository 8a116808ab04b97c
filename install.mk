# make install / uninstall, the man page check, and the demo suite.
#
# Honours PREFIX, BINDIR, LIBEXECDIR, DATADIR, MANDIR, SYSCONFDIR (from
# GNUmakefile) and DESTDIR. The helper must land at HELPER_PATH, the path
# sbx-run was built to find: a PREFIX (or other path) given only to
# `make install` rebuilds both programs first (GNUmakefile's config stamp).

INSTALL ?= install
INSTALL_CONF_DIR  := $(DESTDIR)$(dir $(HELPER_CONF))
INSTALL_CONF      := $(DESTDIR)$(HELPER_CONF)
INSTALL_HELPER    := $(DESTDIR)$(HELPER_PATH)
MAN_PAGES         := man/sbx-run.1 man/sbx-helper.8

.PHONY: install-bin install-helper install-conf install-data install-man \
        install-group install-check config-check suites-check man-check demo

install: install-bin install-helper install-conf install-data install-man install-group

install-bin: $(BUILD)/sbx-run $(BUILD)/sbx-http
	$(INSTALL) -d -m 755 $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)
	$(INSTALL) -m 755 $(BUILD)/sbx-run $(DESTDIR)$(BINDIR)/sbx-run
	$(INSTALL) -m 755 $(BUILD)/sbx-http $(DESTDIR)$(LIBEXECDIR)/sbx-http

# The helper is setuid root and executable only by root and the group
# $(SBX_GROUP) (root:$(SBX_GROUP) 4750): a non-member cannot even run it, so
# none of its code is reachable to them. Without root (a packager's DESTDIR
# build), or where the group does not exist (a DESTDIR staging host), the
# file is installed 0755 and not setuid, and the packager is told what the
# package must set, rather than leaving a setuid file owned by the
# packager's own account or one any user may execute.
install-helper: $(BUILD)/sbx-helper | install-group
	$(INSTALL) -d -m 755 $(dir $(INSTALL_HELPER))
	@if [ "$$(id -u)" -eq 0 ] && getent group $(SBX_GROUP) >/dev/null 2>&1; then \
		echo "$(INSTALL) -o root -g $(SBX_GROUP) -m 4750 $(BUILD)/sbx-helper $(INSTALL_HELPER)"; \
		$(INSTALL) -o root -g $(SBX_GROUP) -m 4750 $(BUILD)/sbx-helper $(INSTALL_HELPER); \
	else \
		$(INSTALL) -m 755 $(BUILD)/sbx-helper $(INSTALL_HELPER); \
		echo "install: not root or no group $(SBX_GROUP) here, so $(INSTALL_HELPER) is installed 0755, not setuid."; \
		echo "install: the package must ship $(HELPER_PATH) as root:$(SBX_GROUP) mode 4750, e.g."; \
		echo "install:   chown root:$(SBX_GROUP) $(INSTALL_HELPER) && chmod 4750 $(INSTALL_HELPER)"; \
	fi

# An admin's edited helper.conf is never overwritten: the new default goes
# beside it as helper.conf.new. The helper refuses a config that is not
# root-owned or is writable by others, hence root:root 0644 when root.
install-conf: policy/helper.conf
	$(INSTALL) -d -m 755 $(INSTALL_CONF_DIR)
	@owner=""; [ "$$(id -u)" -eq 0 ] && owner="-o root -g root"; \
	if [ ! -e $(INSTALL_CONF) ]; then \
		$(INSTALL) $$owner -m 644 policy/helper.conf $(INSTALL_CONF); \
		echo "install: installed $(INSTALL_CONF)"; \
	elif cmp -s policy/helper.conf $(INSTALL_CONF); then \
		echo "install: $(INSTALL_CONF) is already the default"; \
	else \
		$(INSTALL) $$owner -m 644 policy/helper.conf $(INSTALL_CONF).new; \
		echo "install: $(INSTALL_CONF) was edited and is kept;"; \
		echo "install: the new default is $(INSTALL_CONF).new: merge it by hand"; \
	fi; \
	if [ -z "$$owner" ]; then \
		echo "install: not root: the package must ship $(HELPER_CONF) (and its directory)"; \
		echo "install:   owned by root:root and not writable by group or others, or the helper refuses it"; \
	fi

# The seccomp policy is compiled into both programs; this copy only
# documents what is in force (editing it changes nothing until a rebuild).
# The shipped benchmarks (suites/<name>/, each with its LICENSE and
# SOURCES.md) go to $(DATADIR)/suites/<name>/, where sbx-run finds them
# ($SBX_SUITES_DIR overrides that directory).
SUITE_NAMES := $(notdir $(patsubst %/,%,$(dir $(wildcard suites/*/SOURCES.md))))
SUITE_FILES := $(foreach s,$(SUITE_NAMES),$(wildcard suites/$(s)/*))
install-data: policy/seccomp.policy $(SUITE_FILES)
	$(INSTALL) -d -m 755 $(DESTDIR)$(DATADIR)
	$(INSTALL) -m 644 policy/seccomp.policy $(DESTDIR)$(DATADIR)/seccomp.policy
	$(INSTALL) -m 644 suites/README.md $(DESTDIR)$(DATADIR)/suites/README.md -D
	@set -e; for s in $(SUITE_NAMES); do \
		echo "$(INSTALL) -m 644 suites/$$s/* $(DESTDIR)$(DATADIR)/suites/$$s/"; \
		$(INSTALL) -d -m 755 $(DESTDIR)$(DATADIR)/suites/$$s; \
		$(INSTALL) -m 644 suites/$$s/* $(DESTDIR)$(DATADIR)/suites/$$s/; \
	done

install-man: $(MAN_PAGES)
	$(INSTALL) -d -m 755 $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8
	$(INSTALL) -m 644 man/sbx-run.1 $(DESTDIR)$(MANDIR)/man1/sbx-run.1
	$(INSTALL) -m 644 man/sbx-helper.8 $(DESTDIR)$(MANDIR)/man8/sbx-helper.8

# The group whose members may use the helper (helper.conf says which group;
# $(SBX_GROUP) is the default). A staged install never touches the build
# host's groups.
install-group:
	@if getent group $(SBX_GROUP) >/dev/null 2>&1 && [ -z "$(DESTDIR)" ]; then \
		echo "install: group $(SBX_GROUP) exists; add users with: usermod -aG $(SBX_GROUP) USER"; \
	elif [ -n "$(DESTDIR)" ]; then \
		echo "install: DESTDIR set, host groups left alone; the package must run:"; \
		echo "install:   getent group $(SBX_GROUP) >/dev/null || groupadd -r $(SBX_GROUP)"; \
	elif [ "$$(id -u)" -eq 0 ]; then \
		echo "groupadd -r $(SBX_GROUP)"; groupadd -r $(SBX_GROUP) && \
		echo "install: created group $(SBX_GROUP); add users with: usermod -aG $(SBX_GROUP) USER"; \
	else \
		echo "install: group $(SBX_GROUP) is missing; as root run: groupadd -r $(SBX_GROUP)"; \
	fi

# Reverses install. An edited helper.conf stays (it is the admin's), and so
# does the group (files elsewhere may belong to it).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sbx-run $(INSTALL_HELPER) $(DESTDIR)$(LIBEXECDIR)/sbx-http
	rm -f $(DESTDIR)$(DATADIR)/seccomp.policy $(DESTDIR)$(DATADIR)/suites/README.md
	rm -f $(SUITE_FILES:suites/%=$(DESTDIR)$(DATADIR)/suites/%)
	@for s in $(SUITE_NAMES); do rmdir $(DESTDIR)$(DATADIR)/suites/$$s 2>/dev/null || true; done
	@rmdir $(DESTDIR)$(DATADIR)/suites 2>/dev/null || true
	rm -f $(DESTDIR)$(MANDIR)/man1/sbx-run.1 $(DESTDIR)$(MANDIR)/man8/sbx-helper.8
	@for f in $(INSTALL_CONF) $(INSTALL_CONF).new; do \
		[ -e $$f ] || continue; \
		if cmp -s policy/helper.conf $$f; then rm -f $$f; echo "rm -f $$f"; \
		else echo "uninstall: $$f differs from the default and is kept"; fi; \
	done
	@rmdir $(dir $(INSTALL_HELPER)) $(DESTDIR)$(DATADIR) $(INSTALL_CONF_DIR) 2>/dev/null || true
	@echo "uninstall: group $(SBX_GROUP) is left in place (groupdel $(SBX_GROUP) removes it)"

# Man pages: no groff warning of any kind (-ww), checked by make check.
man-check: $(MAN_PAGES)
	@command -v groff >/dev/null || { echo "man-check: groff is missing (apt install groff-base)" >&2; exit 1; }
	@set -e; for m in $(MAN_PAGES); do \
		out=$$(LC_ALL=C.UTF-8 groff -ww -man -z $$m 2>&1); \
		if [ -n "$$out" ]; then echo "$$out" >&2; echo "man-check: $$m has warnings" >&2; exit 1; fi; \
		echo "man-check: $$m ok"; \
	done

# The shipped demo suite: a dozen HumanEval-style problems with correct,
# wrong, crashing, looping, cheating and hostile samples (examples/demo);
# check.py prints the per-task table and fails the demo when a sample does
# not score as examples/demo/expected.jsonl says.
DEMO_OUT := $(BUILD)/demo_results.jsonl
# Debian's interpreter when there is one (a pyenv shim on root's PATH is not
# the system's); check.py needs only the standard library.
DEMO_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
# sbx-run refuses to run candidates as root; the demo's samples are the
# project's own, so `make demo` as root (a fresh machine) says so and goes on.
DEMO_ROOT_FLAG = $(if $(filter 0,$(shell id -u)),--allow-root)
demo: deps
	$(MAKE) all
	rm -f $(DEMO_OUT)
	$(BUILD)/sbx-run --suite humaneval --problems examples/demo/problems.jsonl \
		--samples examples/demo/samples.jsonl --out $(DEMO_OUT) $(DEMO_ROOT_FLAG)
	$(DEMO_PYTHON) examples/demo/check.py $(DEMO_OUT) examples/demo/expected.jsonl

# make install into a scratch DESTDIR, checked: the helper setuid root,
# root:$(SBX_GROUP) 4750 (0755 and a notice when not root or the group is
# missing), the default config in place, an
# edited config kept on reinstall (the default beside it as .new) and on
# uninstall, everything else removed.
INSTALL_CHECK_DIR := $(BUILD)/install-check
install-check: $(BUILD)/sbx-run $(BUILD)/sbx-helper
	@set -e; stage=$(abspath $(INSTALL_CHECK_DIR)); rm -rf $$stage; mkdir -p $$stage; \
	fail() { echo "install-check: $$*" >&2; exit 1; }; \
	h=$$stage$(HELPER_PATH); c=$$stage$(HELPER_CONF); \
	$(MAKE) --no-print-directory install DESTDIR=$$stage > $$stage.log 2>&1 || \
		{ cat $$stage.log >&2; fail "make install DESTDIR=$$stage failed"; }; \
	setuid=0; [ "$$(id -u)" -eq 0 ] && getent group $(SBX_GROUP) >/dev/null 2>&1 && setuid=1; \
	want=755:$$(id -un); [ $$setuid = 1 ] && want=4750:root:$(SBX_GROUP); \
	got=$$(stat -c %a:%U $$h); [ $$setuid = 1 ] && got=$$(stat -c %a:%U:%G $$h); \
	[ "$$got" = "$$want" ] || fail "$$h is $$got, want $$want"; \
	[ $$setuid = 1 ] || grep -q "the package must ship $(HELPER_PATH) as root:$(SBX_GROUP) mode 4750" $$stage.log || \
		fail "no notice that the helper must be setuid root, group $(SBX_GROUP), 4750"; \
	for f in $(BINDIR)/sbx-run $(DATADIR)/seccomp.policy $(MANDIR)/man1/sbx-run.1 $(MANDIR)/man8/sbx-helper.8; do \
		[ -f $$stage$$f ] || fail "$$f not installed"; done; \
	[ -n "$(SUITE_NAMES)" ] || fail "no suites/<name>/SOURCES.md in the tree"; \
	for f in $(SUITE_FILES); do \
		cmp -s $$f $$stage$(DATADIR)/$$f || fail "$$f not installed as $(DATADIR)/$$f"; done; \
	for s in humaneval humanevalplus mbpp mbppplus; do \
		[ -f $$stage$(DATADIR)/suites/$$s/LICENSE ] || fail "suite $$s: no LICENSE installed"; done; \
	cmp -s policy/helper.conf $$c || fail "$$c is not the default"; \
	echo "# edited by install-check" >> $$c; \
	$(MAKE) --no-print-directory install-conf DESTDIR=$$stage > $$stage.log 2>&1; \
	grep -q "was edited and is kept" $$stage.log || fail "reinstall did not say it kept the edited config"; \
	grep -q "edited by install-check" $$c || fail "reinstall overwrote the edited config"; \
	cmp -s policy/helper.conf $$c.new || fail "reinstall did not put the default in $$c.new"; \
	$(MAKE) --no-print-directory uninstall DESTDIR=$$stage > $$stage.log 2>&1; \
	grep -q "differs from the default and is kept" $$stage.log || fail "uninstall did not say it kept the edited config"; \
	[ -f $$c ] || fail "uninstall removed the edited config"; \
	for f in $$h $$c.new $$stage$(BINDIR)/sbx-run $$stage$(DATADIR)/seccomp.policy $$stage$(DATADIR)/suites; do \
		[ ! -e $$f ] || fail "uninstall left $$f"; done; \
	rm -rf $$stage $$stage.log; echo "install-check: ok (helper $$want)"

# Issue 12, item 1: a build reused with other installation paths must be
# rebuilt with them. One scratch tree built three times: with /opt/sbx-a,
# with /opt/sbx-b (the programs must now embed the b paths and no a path),
# and with /opt/sbx-b again (nothing relinked: the stamp is unchanged).
CONFIG_CHECK_DIR := $(BUILD)/config-check
config-check:
	@set -e; b=$(abspath $(CONFIG_CHECK_DIR)); rm -rf $$b $$b.log; mkdir -p $$b; \
	fail() { echo "config-check: $$*" >&2; exit 1; }; \
	build() { $(MAKE) --no-print-directory BUILD=$$b PREFIX=/opt/sbx-$$1 SYSCONFDIR=/etc/sbx-$$1 \
		$$b/sbx-run $$b/sbx-helper >> $$b.log 2>&1 || { cat $$b.log >&2; fail "make PREFIX=/opt/sbx-$$1 failed"; }; }; \
	has() { grep -qaF "$$2" $$b/$$1; }; \
	build a; \
	has sbx-run /opt/sbx-a/libexec/sbx/sbx-helper || fail "sbx-run lacks /opt/sbx-a's helper path"; \
	build b; \
	has sbx-run /opt/sbx-b/libexec/sbx/sbx-helper || fail "PREFIX=/opt/sbx-b did not rebuild sbx-run (helper path)"; \
	! has sbx-run /opt/sbx-a/ || fail "sbx-run still embeds /opt/sbx-a after PREFIX=/opt/sbx-b"; \
	has sbx-helper /etc/sbx-b/sbx/helper.conf || fail "SYSCONFDIR=/etc/sbx-b did not rebuild sbx-helper (config path)"; \
	! has sbx-helper /etc/sbx-a/ || fail "sbx-helper still embeds /etc/sbx-a after SYSCONFDIR=/etc/sbx-b"; \
	before=$$(stat -c %y $$b/sbx-run $$b/sbx-helper); sleep 1; build b; \
	[ "$$(stat -c %y $$b/sbx-run $$b/sbx-helper)" = "$$before" ] || fail "an unchanged PREFIX relinked the programs"; \
	rm -rf $$b $$b.log; echo "config-check: ok (PREFIX and SYSCONFDIR changes rebuild sbx-run and sbx-helper)"

# The shipped data is what its SOURCES.md says: every file's sha256 is
# listed there, and every suite has its LICENSE.
suites-check:
	@set -e; [ -n "$(SUITE_NAMES)" ] || { echo "suites-check: no suites/*/SOURCES.md" >&2; exit 1; }; \
	for s in $(SUITE_NAMES); do \
		[ -f suites/$$s/LICENSE ] || { echo "suites-check: suites/$$s has no LICENSE" >&2; exit 1; }; \
		for f in suites/$$s/*; do \
			[ "$${f##*/}" != SOURCES.md ] || continue; \
			h=$$(sha256sum "$$f" | cut -d' ' -f1); \
			grep -q "$$h" suites/$$s/SOURCES.md || \
				{ echo "suites-check: $$f: sha256 $$h is not in suites/$$s/SOURCES.md" >&2; exit 1; }; \
		done; \
	done; echo "suites-check: ok ($(words $(SUITE_FILES)) files in $(words $(SUITE_NAMES)) suites match their SOURCES.md)"

check: man-check selinux-check fuzz-check install-check config-check suites-check
# On a fresh Debian/Ubuntu machine, `make check` as root installs the build
# dependencies (`deps`) before anything is compiled or checked, also under
# -j; elsewhere (no dpkg) it leaves the system alone.
ifneq ($(filter check,$(MAKECMDGOALS)),)
ifneq ($(shell command -v dpkg-query 2>/dev/null),)
$(COMMON_OBJS) $(POLICY_OBJS) $(HELPER_OBJS) $(FRONTEND_OBJS) $(UNIT_BINS:%=%.o) $(TRY_SYSCALL).o \
$(BUILD)/common/seccomp_gen.o $(BUILD)/gen/seccomp_policy_text.h \
man-check selinux-check fuzz-check install-check config-check: | deps
endif
endif

# ---- The Python package (python/sbx, issue 16) ------------------------------
# Installed where the system python3 finds it: Debian's python3 searches
# /usr/lib/python3/dist-packages and /usr/local/lib/python3.X/dist-packages
# (not /usr/local/lib/python3/...), so a /usr/local install goes to the
# latter. _paths.py is rewritten with the path sbx-run was installed at.
PYTHON_SYS ?= $(firstword $(wildcard /usr/bin/python3) python3)
PYTHON_SITE ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(shell $(PYTHON_SYS) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)/dist-packages)
PYTHON_PKG_FILES := $(filter-out python/sbx/_paths.py,$(wildcard python/sbx/*.py))

.PHONY: install-python uninstall-python
install: install-python
install-python: $(PYTHON_PKG_FILES)
	$(INSTALL) -d -m 755 $(DESTDIR)$(PYTHON_SITE)/sbx
	$(INSTALL) -m 644 $(PYTHON_PKG_FILES) $(DESTDIR)$(PYTHON_SITE)/sbx/
	printf '# Written by make install.\nSBX_RUN = %s\n' "'$(BINDIR)/sbx-run'" \
		> $(DESTDIR)$(PYTHON_SITE)/sbx/_paths.py
	chmod 644 $(DESTDIR)$(PYTHON_SITE)/sbx/_paths.py

uninstall: uninstall-python
uninstall-python:
	rm -rf $(DESTDIR)$(PYTHON_SITE)/sbx
