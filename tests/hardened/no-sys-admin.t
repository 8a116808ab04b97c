#!/bin/bash
# In a container without CAP_SYS_ADMIN (Docker's default), the setuid helper
# cannot create namespaces: it refuses with exit 3 and a message naming
# CAP_SYS_ADMIN, runs nothing, and reports setup-error; sbx-run falls back to
# the next tier that works and says so in --probe and in the result's tier;
# --require-tier helper refuses. With user namespaces off as well (Docker's
# seccomp profile), only the rlimit tier is left, and that is what is used.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/hardened.sh"
hardened_setup
new_workspace

put "$W/mark.sh" <<SH
: > "$W/ran"
SH

# --- the helper itself -------------------------------------------------------
HX_FLAGS=""
hx_run --workdir "$W" -- /bin/sh "$W/mark.sh"
if [ "$rc" -eq 0 ] && [ -e "$W/ran" ]; then ok "control: the helper runs a program"
else not_ok "control: the helper runs a program"; show_run; fi

HX_FLAGS=--no-cap-sys-admin
rm -f "$W/ran"
hx_run --workdir "$W" -- /bin/sh "$W/mark.sh"
is "no CAP_SYS_ADMIN: the helper exits 3" "$rc" 3
if grep -q '^sbx-helper: .*CAP_SYS_ADMIN' "$T/err"; then
        ok "no CAP_SYS_ADMIN: the message names CAP_SYS_ADMIN"; diag "  $(head -n1 "$T/err")"
else
        not_ok "no CAP_SYS_ADMIN: the message names CAP_SYS_ADMIN"; show_run
fi
check_fails "no CAP_SYS_ADMIN: nothing ran" test -e "$W/ran"
is "no CAP_SYS_ADMIN: status JSON says setup-error" "$(jfield status 2>&1)" setup-error

rc=0
as_user "$SBX_HELPER" --probe >"$T/probe" 2>"$T/err" || rc=$?
is "no CAP_SYS_ADMIN: --probe exits 3" "$rc" 3
check "no CAP_SYS_ADMIN: --probe's reason names CAP_SYS_ADMIN" grep -q CAP_SYS_ADMIN "$T/probe" "$T/err"

# --- sbx-run -----------------------------------------------------------------
if [ ! -x "${SBX_RUN:-}" ]; then
        not_ok "sbx-run is installed in the test root ($SBX_RUN)"
        done_testing
fi
SBX_EXTRA_ENV="SBX_HELPER=$SBX_HELPER"

probe_json --no-cap-sys-admin
if [ "$(verdict helper)" = no ] && reason helper | grep -q CAP_SYS_ADMIN; then
        ok "no CAP_SYS_ADMIN: sbx-run --probe: helper does not work, naming CAP_SYS_ADMIN"
        diag "  helper: $(reason helper)"
else
        not_ok "no CAP_SYS_ADMIN: sbx-run --probe: helper does not work, naming CAP_SYS_ADMIN"
        diag "got: $(grep '^helper ' "$T/tiers")"
fi
is "no CAP_SYS_ADMIN: sbx-run --probe: bwrap works (user namespaces need no capability)" \
        "$(verdict bwrap)" yes

put "$W/hello.py" <<'PY'
print("hello")
PY
sbx --no-cap-sys-admin --file "$W/hello.py" --json
is "no CAP_SYS_ADMIN: a run falls back to bwrap and its result says so" \
        "$rc $(jfield tier "$T/out" 2>&1)" "0 bwrap"
if grep -qi 'helper' "$T/err"; then ok "no CAP_SYS_ADMIN: the fallback is said on stderr, not hidden"
        diag "  $(grep -i helper "$T/err" | head -n1)"
else not_ok "no CAP_SYS_ADMIN: the fallback is said on stderr, not hidden"; diag "stderr: $(head -c 400 "$T/err")"; fi
sbx --no-cap-sys-admin --require-tier helper --file "$W/hello.py" --json
if [ "$rc" -eq 3 ] && grep -q CAP_SYS_ADMIN "$T/err"; then
        ok "no CAP_SYS_ADMIN: --require-tier helper refuses (exit 3), naming CAP_SYS_ADMIN"
        diag "  $(head -n1 "$T/err")"
else
        not_ok "no CAP_SYS_ADMIN: --require-tier helper refuses (exit 3), naming CAP_SYS_ADMIN"
        diag "rc $rc" "$(head -c 400 "$T/err")"
fi

# Docker's defaults both: no CAP_SYS_ADMIN and no user namespaces.
probe_json "--no-cap-sys-admin --no-userns"
is "docker-like: --probe: only rlimit works" \
        "$(verdict helper) $(verdict bwrap) $(verdict unshare) $(verdict unshare-root) $(verdict rlimit)" \
        "no no no no yes"
sbx "--no-cap-sys-admin --no-userns" --file "$W/hello.py" --json
is "docker-like: a run uses the rlimit tier and its result says so" \
        "$rc $(jfield tier "$T/out" 2>&1)" "0 rlimit"
done_testing
