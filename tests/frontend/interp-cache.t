#!/bin/bash
# The interpreter query's cache ($SBX_CACHE/interp/): a hit is used (seen
# by planting an answer the interpreter would never give), a changed binary
# or pyvenv.cfg invalidates it, a script interpreter is never cached, and a
# corrupt, foreign, symlinked or FIFO entry is a miss that gets rewritten.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

dir=$(user_tmpdir)
chmod 0755 "$dir"
cache=$dir/cache
# a private ELF copy: its sys.prefix falls back to /usr, and it runs
as_user mkdir -p "$dir/py/bin"
as_user cp /usr/bin/python3 "$dir/py/bin/python3"
py=$dir/py/bin/python3
# the marker: another interpreter path, visible as the candidate's
# sys.executable when a planted entry is believed (made before the first
# run: it changes the binary's directory, which is part of the key)
as_user ln -s python3 "$dir/py/bin/marker-python"
marker=$dir/py/bin/marker-python
printf 'import sys\nprint(sys.executable)\n' > "$dir/p.py"; chmod 644 "$dir/p.py"

# run [ENV=VALUE...]: runs p.py with $py (rlimit tier: the cache is the
# same in every tier), as the test user; sets rc and out.
run() {
        rc=0
        out=$(as_user env SBX_CACHE="$cache" "$@" "$SBX_RUN" -q --tier rlimit \
                --python "${PY:-$py}" --file "$dir/p.py" 2>"$dir/err") || rc=$?
}
entries() { find "$cache/interp" -mindepth 1 -maxdepth 1 2>/dev/null | sort; }
count() { entries | grep -c . || true; }
# line N [FILE]: line N of the entry (or FILE)
line() { sed -n "${1}p" "${2:-$entry}"; }
# snap: keeps a copy of the entry's good text in $dir/ref, which plant
# reads (never the entry itself: that may be a FIFO by then)
snap() { cp "$entry" "$dir/ref"; }
# plant EXE [FILE]: the good text of the entry, exe replaced, written to
# FILE (default: the entry) as the user.
plant() {
        local r=$dir/ref
        { line 1 "$r"; line 2 "$r"; echo "$1"; line 4 "$r"; line 5 "$r"; line 6 "$r"; } > "$dir/planted"
        install -o "$SBX_TEST_USER" -m 0600 "$dir/planted" "${2:-$entry}"
}

run
check "first run works (rc $rc, out '$out')" test "$rc/$out" = "0/$py"
check "exactly one entry under \$SBX_CACHE/interp ($(count))" test "$(count)" = 1
entry=$(entries)
check "the entry is a regular file owned by the user, mode 0600" \
        test "$(stat -c '%F %U %a' "$entry")" = "regular file $SBX_TEST_USER 600"
check "the cache dir is mode 0700" test "$(stat -c %a "$cache/interp")" = 700
check "line 1 is the magic" test "$(line 1)" = "sbx-interp-cache 1"
check "the key line names the path as given" grep -qF "path ${#py}:$py " <<<"$(line 2)"
check "lines 3-6: exe, prefix, base_prefix, version" \
        test "$(line 3)|$(line 4)|$(line 5)|$(line 6 | cut -c1-4)" = "$py|/usr|/usr|$(/usr/bin/python3 -c 'import sys; print(sys.version[:4])')"
check "six lines, nothing else" test "$(wc -l < "$entry")" = 6
snap

plant "$marker"
run
check "a valid entry is used, the interpreter is not asked (got '$out')" test "$out" = "$marker"
check "still one entry" test "$(count)" = 1

sleep 0.01; as_user touch "$py"
run
check "touching the binary invalidates the entry (got '$out')" test "$out" = "$py"
check "the entry was rewritten ($(line 3))" test "$(line 3)" = "$py"
check "still one entry after the rewrite" test "$(count)" = 1

# a venv: bin/python3 a symlink to the private binary; sys.prefix comes
# from pyvenv.cfg beside it, so creating that file must invalidate
as_user mkdir -p "$dir/venv/bin"
as_user ln -s "$py" "$dir/venv/bin/python3"
PY=$dir/venv/bin/python3 run
check "a symlinked interpreter runs (rc $rc, '$out')" test "$rc" = 0
vpy=$dir/venv/bin/python3
entry=$(grep -lF "path ${#vpy}:$vpy " "$cache"/interp/* | head -1)
check "it has its own entry (of the path as given)" test -n "$entry" -a "$(count)" = 2
check "no pyvenv.cfg yet: the key says '-' for both" grep -q ' cfg1 - cfg2 - ' <<<"$(line 2)"
snap
plant "$marker"
PY=$dir/venv/bin/python3 run
check "the venv path's entry is used (got '$out')" test "$out" = "$marker"
printf 'home = %s\n' "$dir/py/bin" > "$dir/venv/pyvenv.cfg"; chmod 644 "$dir/venv/pyvenv.cfg"
PY=$dir/venv/bin/python3 run
check "creating pyvenv.cfg invalidates it (got '$out')" test "$out" = "$dir/venv/bin/python3"
check "the new key records pyvenv.cfg's stat" grep -qE ' cfg2 [0-9]+:[0-9]+:' <<<"$(line 2)"
check "the answer is the venv's (prefix $(line 4))" test "$(line 4)" = "$dir/venv"
snap
plant "$marker"
sleep 0.01; echo 'include-system-site-packages = false' >> "$dir/venv/pyvenv.cfg"
PY=$dir/venv/bin/python3 run
check "changing pyvenv.cfg invalidates it (got '$out')" test "$out" = "$dir/venv/bin/python3"
rm -rf "$dir/venv"

# corrupt entries: each is a miss, the run works, the entry is rewritten
# as a regular file of the user with the real answer
entry=$(grep -lF "path ${#py}:$py " "$cache"/interp/*)
good=$(cat "$entry")
snap
rewritten() {
        test "$rc/$out" = "0/$py" && test ! -L "$entry" && test -f "$entry" &&
                test "$(stat -c %U "$entry")" = "$SBX_TEST_USER" && test "$(cat "$entry")" = "$good"
}
corrupt() {
        local what=$1
        run
        check "$what: a miss, the run works and the entry is rewritten (rc $rc, '$out')" rewritten
}
rm -f "$entry"; head -c 300 /dev/urandom > "$dir/junk"
install -o "$SBX_TEST_USER" -m 0600 "$dir/junk" "$entry"; corrupt "junk bytes"
plant python3; corrupt "a relative exe"
plant "$marker"; sed -i '1s/.*/sbx-interp-cache 2/' "$entry"; chown "$SBX_TEST_USER" "$entry"
corrupt "a wrong magic"
plant "$marker"; sed -i '2s/$/ x/' "$entry"; chown "$SBX_TEST_USER" "$entry"
corrupt "a different key"
plant "$marker"; printf 'extra\n' >> "$entry"; corrupt "a seventh line"
plant "$marker"; truncate -s -1 "$entry"; corrupt "a last line without its newline"
plant "$marker"; : > "$entry"; corrupt "an empty file"
plant "$marker" "$dir/elsewhere"; rm -f "$entry"; as_user ln -s "$dir/elsewhere" "$entry"
corrupt "a symlink (to a valid-looking answer) in place of the entry"
plant "$marker"; chown root:root "$entry"; chmod 0644 "$entry"
corrupt "an entry owned by someone else (readable by all)"
rm -f "$entry"; as_user mkfifo -m 600 "$entry"
rc=0; out=$(as_user env SBX_CACHE="$cache" timeout -k 5 20 "$SBX_RUN" -q --tier rlimit \
        --python "$py" --file "$dir/p.py" 2>"$dir/err") || rc=$?
check "a FIFO in place of the entry: no hang, a miss, rewritten (rc $rc, '$out')" rewritten
[ -f "$entry" ] || rm -f "$entry"
# valid but for its size: a version line of 70,000 characters
r=$dir/ref
{ line 1 "$r"; line 2 "$r"; echo "$marker"; line 4 "$r"; line 5 "$r"; printf '%s' "$(line 6 "$r")"
  head -c 70000 /dev/zero | tr '\0' x; echo; } > "$dir/big"
install -o "$SBX_TEST_USER" -m 0600 "$dir/big" "$entry"; corrupt "an entry over 64 KiB"
leftover=$(find "$cache/interp" -name '*.tmp.*' | wc -l)
check "no temp file is left behind ($leftover)" test "$leftover" = 0

# a directory others may write: not trusted, the cache is not used
plant "$marker"; chmod 0770 "$cache/interp"
run
check "a group-writable cache dir is not used (got '$out')" test "$rc/$out" = "0/$py"
chmod 0700 "$cache/interp"

# a script interpreter picks its Python per call: never cached
cache=$dir/cache-script
printf '#!/bin/sh\nexec /usr/bin/python3 "$@"\n' > "$dir/py/bin/wrap"; chmod 755 "$dir/py/bin/wrap"
PY=$dir/py/bin/wrap run
check "a script interpreter runs (rc $rc, '$out')" test "$rc/$out" = 0//usr/bin/python3
check "a script interpreter is never cached ($(count) entries)" test "$(count)" = 0
check "not even the cache dir is made for it" test ! -e "$cache/interp"

cache=$dir/cache-off
run SBX_NO_INTERP_CACHE=1
check "SBX_NO_INTERP_CACHE=1: the run works (rc $rc)" test "$rc/$out" = "0/$py"
check "SBX_NO_INTERP_CACHE=1: nothing is written ($(count) entries)" test "$(count)" = 0
run
check "without it, the same cache root gets its entry ($(count))" test "$(count)" = 1

# a cache root that cannot be created is no cache, never an error
as_user touch "$dir/a-file"
cache=$dir/a-file/cache
run
check "an impossible cache root: the run still works (rc $rc, '$out')" test "$rc/$out" = "0/$py"
check "and says nothing about the cache" test ! -s "$dir/err"
done_testing
