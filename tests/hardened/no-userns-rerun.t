#!/bin/bash
# The helper's whole integration set (tests/helper/*.t) and the escape tests
# (tests/escape/*.t), re-run as they are on a host without user namespaces:
# each script runs as root under harden-exec --no-userns, so the filter is
# inherited by everything it starts, the setuid helper included. One TAP line
# per script; its failing lines are printed.
#
# A few properties are meant to differ when the helper falls back, and each is
# checked for its fallback value in no-userns-helper.t instead; they are
# listed below with the reason. A listed test that passes is reported too.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/hardened.sh"
hardened_setup
# Docker's shape of "no user namespaces" (clone3 ENOSYS) by default;
# SBX_HX_NOUSERNS="--no-userns --allow-clone3" tries the sysctl-like one.
NOUSERNS=${SBX_HX_NOUSERNS:---no-userns}

# script|regex on the test's description|why it differs here
EXPECTED_DIFFERENCES='
tests/helper/rlimits.t|RLIMIT_NPROC|rlimit mode sets --nproc plus the caller'"'"'s own processes (no-userns-helper.t checks the sum)
tests/escape/bombs.t|fork bomb: capped at --nproc|rlimit mode counts the caller'"'"'s processes once, at the start, plus a slack for the helper'"'"'s own, so a few forks past --nproc can succeed (no-userns-helper.t checks the cap at --nproc + 8)
tests/escape/warm.t|ran warm|warm runs need unprivileged user namespaces: here the helper refuses --zygote and every sample runs cold, contained as the rest of the script checks (tests/helper/zygote.t checks the refusal)
tests/escape/warm_seccomp.t|the sample ran warm|warm runs need unprivileged user namespaces: here the sample runs cold, and answers every probe as the cold run does (the script checks that too)
tests/escape/warm_caller_limits.t|the sample ran warm|warm runs need unprivileged user namespaces: here the sample runs cold, its limits clamped as the script checks
tests/escape/warm_stdio_binds.t|the sample ran warm|warm runs need unprivileged user namespaces: here the sample runs cold, its fd 0 /dev/null as the script checks
tests/escape/warm_mountpoints.t|both samples warm|warm runs need unprivileged user namespaces: here the samples run cold and see the --ro-bind read-only, as the script checks
tests/escape/warm_terminal.t|both samples ran warm|warm runs need unprivileged user namespaces: here the samples run cold, and nothing of theirs reaches the terminal, as the script checks
tests/escape/native.t|sanity: outside, a user namespace can be made|the simulated host has no user namespaces for anyone, so unshare(CLONE_NEWUSER) by the native payload fails outside too; inside it fails as everywhere (as the script checks)
tests/helper/zygote.t|--zygote runs|--zygote needs unprivileged user namespaces: here it is refused, exit 3, which the script checks through harden-exec --no-userns
tests/escape/pid1.t|the sample ran warm|warm runs need unprivileged user namespaces: here the sample runs cold, its pid 1 as out of reach as the script checks
tests/escape/procfs.t|the sample ran warm|warm runs need unprivileged user namespaces: here the sample runs cold, every knob refused as the script checks
tests/escape/semaphores.t|the samples ran warm|warm runs need unprivileged user namespaces: here the samples run cold, the flood held and multiprocessing working as the script checks
tests/escape/warm_zygote_children.t|ran warm|warm runs need unprivileged user namespaces: here the samples run cold and pass, as the script checks
tests/escape/warm_zygote_children.t|the zygote was found and stopped|warm runs need unprivileged user namespaces: no zygote to stop here; the suite still ends with every sample passed
'

expected_difference() { # SCRIPT LINE: prints the reason when LINE is listed
        local script=$1 line=$2 s re why
        while IFS='|' read -r s re why; do
                [ -n "$s" ] && [ "$s" = "$script" ] || continue
                if [[ $line =~ $re ]]; then echo "$why"; return 0; fi
        done <<<"$EXPECTED_DIFFERENCES"
        return 1
}

cd "$SBX_TEST_ROOT" || { not_ok "cd $SBX_TEST_ROOT"; done_testing; }
scripts=$(ls tests/helper/*.t tests/escape/*.t 2>/dev/null)
if [ -z "$scripts" ]; then
        # Nothing to re-run means nothing was shown: that is a failure.
        not_ok "tests/helper and tests/escape hold scripts to re-run"
        done_testing
fi

out=$(mktemp "$HX_DIR/rerun.XXXXXX")
for script in $scripts; do
        rc=0
        SBX_HARDENED=no-userns "$HARDEN_EXEC" $NOUSERNS -- bash "$script" >"$out" 2>"$out.err" </dev/null || rc=$?
        total=$(grep -cE '^(not )?ok ' "$out")
        unexpected=0 listed=0
        while IFS= read -r line; do
                if why=$(expected_difference "$script" "$line"); then
                        listed=$((listed + 1)); diag "$script: expected here: $line ($why)"
                else
                        unexpected=$((unexpected + 1)); diag "$script: $line"
                fi
        done < <(grep -E '^not ok ' "$out")
        skip_all_line=$(grep -E '^1\.\.0 # SKIP' "$out")
        if [ -n "$skip_all_line" ]; then
                not_ok "no-userns: $script ran (it skipped: ${skip_all_line#*SKIP })"
        elif [ "$unexpected" -eq 0 ] && [ "$total" -gt 0 ] &&
             { [ "$rc" -eq 0 ] || [ "$listed" -gt 0 ]; }; then
                note=""; [ "$listed" -gt 0 ] && note=", $listed expected differences"
                ok "no-userns: $script passes ($total tests$note)"
        else
                not_ok "no-userns: $script passes ($total tests, $unexpected failed, rc $rc)"
                grep -E '^# ' "$out.err" | head -20 >&2
        fi
done
done_testing
