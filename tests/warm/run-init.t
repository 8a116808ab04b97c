#!/bin/bash
# sbx-run-init (frontend/warm/zygote/init/), a warm run's pid 1, refuses a
# request it cannot carry out exactly, before it makes any namespace: each
# bad word is named on its info fd (or stderr, before that fd is known) and
# it exits 127, never crashing or going on. Run as the test user, from a
# root-owned copy.
. "$(dirname "$0")/../lib/lib.sh"
repo=${SBX_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
users_outside_run_integration "$repo"
build=${BUILD:-$repo/build}
case $build in /*) ;; *) build=$repo/$build ;; esac
init=$build/sbx-run-init
[ -x "$init" ] || make -s -C "$repo" BUILD="$build" "$init" >&2 || { echo "1..1"; echo "not ok 1 - build sbx-run-init"; exit 1; }
Z=$(mktemp -d /tmp/sbx-run-init-t.XXXXXX)
at_exit "rm -rf $Z"
chmod 0755 "$Z"
install -m 0755 "$init" "$Z/sbx-run-init"
install -m 0755 /dev/stdin "$Z/try.sh" <<'SH'
#!/bin/bash
# try.sh WANT ARGS...: runs sbx-run-init with fd 3 (info), 4 (end), 5
# (bpf) open, its parent this shell; prints "rc|what it said".
init=$(dirname "$0")/sbx-run-init
exec 4</dev/null 5</dev/null
said=$( { "$init" "$@" 3>&1 2>&1 >/dev/null; echo "rc=$?"; } 2>&1)
printf '%s\n' "$said" | tr '\n' '|'
SH

# refuses DESCRIPTION EXPECTED-TEXT ARGS...: exit 127 and the text said.
refuses() {
        local d=$1 want=$2 got; shift 2
        got=$(as_user bash -c 'exec "$0" "$@"' "$Z/try.sh" "$@")
        case $got in
        *"$want"*rc=127*) ok "$d" ;;
        *) not_ok "$d"; diag "want '$want' and rc=127, got: $got" ;;
        esac
}
u=$(id -u "$SBX_TEST_USER"); g=$(id -g "$SBX_TEST_USER")
refuses "no request: said on stderr" "want INFO ZYGOTE END BPF" 
refuses "an info fd that is not a number" "info fd: want an integer" x 1 4 5 "$u" "$g" 1 4096 /tmp/w
refuses "a uid that is not a number" "uid: want an integer" 3 1 4 5 abc "$g" 1 4096 /tmp/w
refuses "a tmpfs under a page" "tmpfs bytes: want an integer" 3 1 4 5 "$u" "$g" 1 100 /tmp/w
refuses "a cwd with .." "is not a clean path" 3 1 4 5 "$u" "$g" 1 4096 /tmp/../etc
refuses "a cwd outside /tmp" "cwd: want a path under /tmp/" 3 1 4 5 "$u" "$g" 1 4096 /etc/w
refuses "a relative home" "homes: want an absolute path" 3 1 4 5 "$u" "$g" 1 4096 /tmp/w -h home
refuses "five homes" "more than 4 homes" 3 1 4 5 "$u" "$g" 1 4096 /tmp/w -h /a -h /b -h /c -h /d -h /e
refuses "a file name with a slash" "is not a plain name" 3 1 4 5 "$u" "$g" 1 4096 /tmp/w -f 5 ../x
refuses "an unknown option" "unknown option" 3 1 4 5 "$u" "$g" 1 4096 /tmp/w -z x
refuses "an option without its value" "bad option" 3 1 4 5 "$u" "$g" 1 4096 /tmp/w -b
refuses "stdout as the end fd" "fd 1 is one of stdio" 3 1 1 5 "$u" "$g" 1 4096 /tmp/w
refuses "a parent that is not its zygote (pid 1 is not this shell)" "its zygote (pid 1) is gone" \
        3 1 4 5 "$u" "$g" 1 4096 /tmp/w
huge=$(head -c 100000 /dev/zero | tr '\0' a)
refuses "a 100 KB path" "want an absolute path" 3 1 4 5 "$u" "$g" 1 4096 "/tmp/$huge"
done_testing
