#!/bin/bash
# Where a --file run's program lives. In the bwrap tier it is copied into a
# memfd and bwrap copies it into the run's tmpfs (--ro-bind-data): nothing is
# made on the host, so a TMPDIR the user cannot write still runs there. A run
# that falls back from bwrap to a tier without that (a bwrap that never
# starts the program) gets the host workdir then, and runs once. The size
# cap holds either way.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
command -v bwrap >/dev/null || { skip_all "bwrap not installed"; }

dir=$(user_tmpdir)
printf 'import os\nprint(os.getcwd(), __file__, oct(os.stat(__file__).st_mode & 0o777))\n' > "$dir/p.py"
chmod 644 "$dir/p.py"

# a TMPDIR the user may not write: sbx-run could make no workdir there
ro=$(user_tmpdir)
chmod 0500 "$ro"
rc=0
out=$(as_user env TMPDIR="$ro" "$SBX_RUN" -q --tier bwrap --file "$dir/p.py") || rc=$?
check "bwrap tier, read-only TMPDIR: the run passes (rc $rc)" test "$rc" = 0
read -r cwd file mode <<<"$out"
check "the workdir is a path under TMPDIR inside the sandbox ($cwd)" \
        bash -c '[[ $1 == "$2"/sbx-run-?????? ]]' _ "$cwd" "$ro"
check "the program is in it ($file)" test "$file" = "$cwd/program.py"
check "the program's mode is a host copy's ($mode)" test "$mode" = 0o644
check "nothing was made in TMPDIR" test -z "$(ls -A "$ro")"
rc=0
as_user env TMPDIR="$ro" "$SBX_RUN" -q --tier unshare --file "$dir/p.py" >/dev/null 2>&1 || rc=$?
check "the unshare tier still needs a host workdir: read-only TMPDIR, exit 3 (got $rc)" test "$rc" = 3

# a bwrap that never starts the program: the run falls back to unshare,
# whose workdir is on the host, and the program runs once
mkdir -p "$dir/fakebwrap"
printf '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n' > "$dir/fakebwrap/bwrap"
chmod 755 "$dir/fakebwrap/bwrap"
ln -s "$(command -v unshare)" "$dir/fakebwrap/unshare"
tmp=$(user_tmpdir)
printf 'import os\nopen("%s/runs.log", "a").write("ran\\n")\nprint(os.getcwd())\n' "$dir" > "$dir/once.py"
chmod 644 "$dir/once.py"
rc=0
out=$(as_user env SBX_HELPER=/nonexistent PATH="$dir/fakebwrap" TMPDIR="$tmp" \
        "$SBX_RUN" --json --file "$dir/once.py" 2>"$dir/fallback.err") || rc=$?
check "bwrap that fails to start: rc 0 (got $rc)" test "$rc" = 0
check "bwrap that fails to start: ran in unshare ($(jq -r .tier <<<"$out"))" \
        test "$(jq -r .tier <<<"$out")" = unshare
check "bwrap that fails to start: the fallback is said" grep -q 'tier bwrap does not work' "$dir/fallback.err"
check "bwrap that fails to start: the program ran once" test "$(wc -l < "$dir/runs.log")" = 1
cwd=$(jq -r .stdout <<<"$out")
check "its workdir was on the host, under TMPDIR (${cwd%$'\n'})" \
        bash -c '[[ $1 == "$2"/sbx-run-??????* ]]' _ "${cwd%$'\n'}" "$tmp"
check "and is gone after the run" test -z "$(ls -A "$tmp")"

# the cap on the program's size, in both places the copy goes
truncate -s $(( (64 << 20) + 1 )) "$dir/big.py"; chmod 644 "$dir/big.py"
for t in bwrap unshare; do
        rc=0
        msg=$(as_user "$SBX_RUN" -q --tier $t --file "$dir/big.py" 2>&1) || rc=$?
        check "$t: a program over 64 MiB is refused, exit 2 (got $rc)" test "$rc" = 2
        check "$t: the refusal says why" grep -q 'larger than' <<<"$msg"
done
done_testing
