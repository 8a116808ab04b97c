#!/bin/bash
# What the caller hands the sandbox (issue 14 items 12, 13): no --ro-bind of
# a socket or FIFO (read-only would not stop connect or write), never $HOME
# or /run/user/UID (or a directory above them) whole; fds 0-2 only files,
# pipes, sockets, terminals or /dev/null (a directory on fd 0 reached the
# host through /proc/self/fd/0/..).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
put "$W/mark.sh" <<SH
: > "$W/ran"
SH
mark=(/bin/sh "$W/mark.sh")

D=$T/sockdir; mkdir -m 0755 "$D" && chown "$SBX_TEST_USER:" "$D"
as_user "$HOST_PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$D/sock"
as_user mkfifo "$D/fifo"
refused "--ro-bind of a unix socket is refused" --workdir "$W" --ro-bind "$D/sock" -- "${mark[@]}"
refused "--ro-bind of a FIFO is refused" --workdir "$W" --ro-bind "$D/fifo" -- "${mark[@]}"
refused "--ro-bind of \$HOME is refused" --workdir "$W" --ro-bind "$home" -- "${mark[@]}"
refused "--ro-bind of a directory above \$HOME is refused" --workdir "$W" --ro-bind "$(dirname "$home")" -- "${mark[@]}"
refused "--workdir \$HOME is refused" --workdir "$home" -- "${mark[@]}"
ru=/run/user/$(id -u "$SBX_TEST_USER")
if [ ! -e "$ru" ]; then
        mkdir -p /run/user && mkdir -m 0700 "$ru" && chown "$SBX_TEST_USER:" "$ru" && at_exit "rmdir $ru"
fi
refused "--ro-bind of /run/user/UID is refused" --workdir "$W" --ro-bind "/run/user/$(id -u "$SBX_TEST_USER")" -- "${mark[@]}"

HRUN_STDIN=$home refused "a directory on fd 0 (< \$HOME) is refused" --workdir "$W" -- "${mark[@]}"
put "$W/in.txt" <<< "hello"
HRUN_STDIN=$W/in.txt hrun --workdir "$W" -- /bin/cat
is "a regular file on fd 0 is accepted" "$rc $(cat "$T/out")" "0 hello"
HRUN_STDIN=/dev/null hrun --workdir "$W" -- /bin/cat
is "/dev/null on fd 0 is accepted" "$rc" 0
done_testing
