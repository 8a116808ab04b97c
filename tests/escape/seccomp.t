#!/bin/bash
# The seccomp filter refuses what an escape needs. tests/escape/try-syscall
# runs one syscall per sandbox and exits with its errno; each probe is also
# run outside the sandbox first, and the result is shown, so a denial can be
# told from the kernel's own refusal.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
[ -x "${SBX_TRY_SYSCALL:-}" ] || skip_all "SBX_TRY_SYSCALL not built (tests/tests.mk builds it)"
new_workspace
install -o "$SBX_TEST_USER" -m 0755 "$SBX_TRY_SYSCALL" "$W/try-syscall"
EPERM=1 ENOSYS=38 EAFNOSUPPORT=97

# The bwrap tier loads the same program (common/): the newer probes run
# there too, through sbx-run --tier bwrap.
bwrap_ok=0
if as_user "$SBX_RUN" -q --tier bwrap --workdir "$W" -- /bin/true >/dev/null 2>&1; then
        bwrap_ok=1
else
        diag "the bwrap tier does not work here: its probes below are skipped"
fi
probe() { # NAME: runs it inside; sets rc, prints the host's result as a diag
        local host
        host=$(as_user "$W/try-syscall" "$1" 2>&1 </dev/null; echo "rc=$?")
        HRUN_HOSTILE=30 hrun --workdir "$W" --timeout 10 -- "$W/try-syscall" "$1"
        diag "$1: host $(echo $host), sandbox $(cat "$T/out") rc=$rc"
}
bprobe() { # NAME: the same in the bwrap tier; rc is the prober's exit code
        hostile 30 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME=/nonexistent "$SBX_RUN" -q --tier bwrap --json \
                --workdir "$W" --timeout 10 -- "$W/try-syscall" "$1" >"$T/out" 2>"$T/err" </dev/null
        rc=$(jq -r '.returncode // 255' "$T/out" 2>/dev/null) || rc=255
        diag "$1 (bwrap): $(jq -r .stdout "$T/out" 2>/dev/null) rc=$rc"
}
denied() { # NAME DESCRIPTION ERRNO...: the probe fails with one of ERRNO
        local name=$1 d=$2 e; shift 2
        probe "$name"
        for e in "$@"; do [ "$rc" -eq "$e" ] && { ok "$d"; return; }; done
        not_ok "$d"; show_run
}
denied_both() { # NAME DESCRIPTION ERRNO...: denied in the helper and bwrap tiers
        local name=$1 d=$2 e; shift 2
        denied "$name" "$d" "$@"
        if [ $bwrap_ok = 0 ]; then
                ok "# SKIP bwrap: $d (the bwrap tier does not work here)"; return
        fi
        bprobe "$name"
        for e in "$@"; do [ "$rc" -eq "$e" ] && { ok "bwrap: $d"; return; }; done
        not_ok "bwrap: $d"; diag "stderr: $(head -c 600 "$T/err")"
}

denied unshare "unshare(CLONE_NEWUSER) denied" $EPERM $ENOSYS
denied unshare-mount "unshare(CLONE_NEWNS) denied" $EPERM $ENOSYS
denied mount "mount denied" $EPERM $ENOSYS
denied bpf "bpf denied" $EPERM $ENOSYS
denied userfaultfd "userfaultfd (even user-mode-only) denied" $EPERM $ENOSYS
denied io_uring_setup "io_uring_setup denied" $EPERM $ENOSYS
denied keyctl "keyctl denied" $EPERM $ENOSYS
denied perf_event_open "perf_event_open denied" $EPERM $ENOSYS
denied ptrace-traceme "ptrace(PTRACE_TRACEME) denied" $EPERM $ENOSYS
denied ptrace-attach "ptrace(PTRACE_ATTACH) to a sibling denied" $EPERM $ENOSYS
denied kexec_load "kexec_load denied" $EPERM $ENOSYS
denied init_module "init_module denied" $EPERM $ENOSYS
denied clone-newuser "clone(CLONE_NEWUSER) denied" $EPERM $ENOSYS
denied clone3 "clone3 answers ENOSYS (so libc falls back to clone)" $ENOSYS
denied socket-netlink "socket(AF_NETLINK) denied" $EPERM $ENOSYS $EAFNOSUPPORT
denied socket-packet "socket(AF_PACKET) denied" $EPERM $ENOSYS $EAFNOSUPPORT
denied socket-highbits "socket(AF_NETLINK | 1<<32) denied (high bits ignored)" $EPERM $ENOSYS $EAFNOSUPPORT

# Newer syscalls than the policy knows answer ENOSYS, whatever they are.
denied_both open_tree_attr "open_tree_attr (467, newer than the policy) answers ENOSYS" $ENOSYS
denied_both mseal "mseal (462, newer than the policy) answers ENOSYS" $ENOSYS
# Memory that no rlimit bounds, and host-wide counters.
denied_both memfd_create "memfd_create answers ENOSYS" $ENOSYS
denied_both shmget "SysV shmget answers ENOSYS" $ENOSYS
denied_both msgget "SysV msgget answers ENOSYS" $ENOSYS
for name in semget semop semtimedop semctl; do
        denied_both $name "SysV $name answers ENOSYS" $ENOSYS
done
denied_both io_setup "io_setup (host-wide aio-nr) answers ENOSYS" $ENOSYS
# Reaching outside the run from inside it (a warm candidate's parent is the
# zygote; the warm and bwrap tiers' pid 1 has the candidate's uid).
denied_both clone-parent "clone(CLONE_PARENT) denied" $EPERM
denied_both prlimit-other "prlimit on another process (a sibling of the same uid) denied" $EPERM
probe prlimit-self
is "prlimit and setrlimit on the caller itself (pid 0) still work" "$rc" 0
denied_both io_submit "io_submit denied" $EPERM
# Kernel surface nothing in a candidate needs.
for name in modify_ldt mbind set_mempolicy migrate_pages move_pages fanotify_init \
            process_madvise vmsplice sysfs; do
        denied_both $name "$name denied" $EPERM
done
denied_both personality-norandom "personality(ADDR_NO_RANDOMIZE) denied" $EPERM
denied_both personality-exec "personality(READ_IMPLIES_EXEC) denied" $EPERM
denied_both personality-highbits "personality(ADDR_NO_RANDOMIZE | 1<<32) denied" $EPERM
probe personality-linux32
is "personality(PER_LINUX32) still works (as Docker allows)" "$rc" 0

probe socket-inet
is "socket(AF_INET) still works (the filter is not deny-all)" "$rc" 0
probe getpid
is "getpid works" "$rc" 0

# Foreign ABIs: the filter's bad-arch action kills the process.
probe x32
if [ "$rc" -eq $((128 + 31)) ] && [ "$(jfield signal)" = 31 ]; then
        ok "x32 syscall (nr | 0x40000000) kills the prober with SIGSYS"
else
        not_ok "x32 syscall (nr | 0x40000000) kills the prober with SIGSYS"; show_run
fi
probe i386
host=$(as_user "$W/try-syscall" i386 >/dev/null 2>&1 </dev/null; echo $?)
if [ "$rc" -eq $((128 + 31)) ]; then
        ok "i386 int 0x80 kills the prober with SIGSYS"
elif [ "$host" -eq $((128 + 11)) ] && [ "$rc" -eq $((128 + 11)) ]; then
        ok "i386 int 0x80 does not return (SIGSEGV: this kernel has no IA32 emulation, as on the host)"
else
        not_ok "i386 int 0x80 kills the prober with SIGSYS"; diag "host rc $host"; show_run
fi
done_testing
