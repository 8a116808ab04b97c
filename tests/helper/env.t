#!/bin/bash
# The environment is cleared: the candidate sees PATH, HOME, TMPDIR and the
# --env pairs, nothing of the caller's (LD_PRELOAD, PYTHONPATH, secrets).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace

SBX_EXTRA_ENV="FOO=secret LD_PRELOAD=/nonexistent/evil.so LD_LIBRARY_PATH=/tmp
PYTHONPATH=/tmp PYTHONSTARTUP=/tmp/x.py BASH_ENV=/tmp/x ENV=/tmp/x
TMPDIR=/evil PATH=/evil:/usr/bin:/bin GCONV_PATH=/tmp MALLOC_CHECK_=3
SBX_HELPER_CONF=/tmp/evil.conf"
SBX_EXTRA_ENV=$(echo $SBX_EXTRA_ENV) \
        hrun --workdir "$W" --env A=1 --env B=two --env A=3 -- /usr/bin/env
[ "$rc" -eq 0 ] || show_run
want=$(printf '%s\n' A=3 B=two HOME="$W" PATH=/usr/bin:/bin TMPDIR=/tmp | sort)
is "the environment is exactly the base and the --env pairs" "$(sort "$T/out" | tr '\n' ' ')" \
        "$(echo "$want" | tr '\n' ' ')"
check_fails "FOO=secret does not reach the candidate" grep -q secret "$T/out"
check_fails "LD_PRELOAD does not reach the candidate" grep -q LD_ "$T/out"

put "$W/mark.sh" <<SH
: > "$W/ran"
SH
refused "--env without = is refused" --workdir "$W" --env JUSTNAME -- /bin/sh "$W/mark.sh"
refused "--env with an empty name is refused" --workdir "$W" --env =x -- /bin/sh "$W/mark.sh"
done_testing
