#!/bin/bash
# The venv cache: offline installs (a wheel built here, pip told by its own
# PIP_* variables), the stamp (same spec: no rebuild; changed: rebuild),
# provisioning, one build for two concurrent sbx-runs, a read-only venv in
# the strong tiers, and a failed install leaving no stamp.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

dir=$(user_tmpdir)
cache=$dir/cache
sbx() {
        as_user env SBX_HELPER="$SBX_HELPER" SBX_CACHE="$cache" PIP_NO_INDEX=1 \
                PIP_FIND_LINKS="$dir/wheels" "$SBX_RUN" "$@"
}
ms_now() { echo $(( $(date +%s%N) / 1000000 )); }

cat > "$dir/mkwheel.py" <<'PY'
import os, sys, zipfile
d, name, ver = sys.argv[1:4]
di = f"{name}-{ver}.dist-info"
files = {
    f"{name}/__init__.py": f"VERSION = {ver!r}\n",
    f"{di}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {ver}\n",
    f"{di}/WHEEL": "Wheel-Version: 1.0\nGenerator: sbx-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
files[f"{di}/RECORD"] = "".join(f"{p},,\n" for p in files) + f"{di}/RECORD,,\n"
with zipfile.ZipFile(os.path.join(d, f"{name}-{ver}-py3-none-any.whl"), "w") as z:
    for p, c in files.items():
        z.writestr(p, c)
PY
cat > "$dir/use.py" <<'PY'
import sys, tinypkg
print(tinypkg.VERSION, sys.prefix)
PY
cat > "$dir/prov.py" <<'PY'
import os
venv = os.environ["SANDBOX_VENV"]
open(os.path.join(venv, "provisioned"), "w").write("yes")
with open(os.path.join(os.path.dirname(venv), "builds"), "a") as f:
    f.write("build\n")
PY
cat > "$dir/seeprov.py" <<'PY'
import os, sys
print(open(os.path.join(sys.prefix, "provisioned")).read())
try:
    open(os.path.join(sys.prefix, "planted.py"), "w").write("x")
    print("venv writable")
except OSError as e:
    print("venv read-only", e.errno)
PY
chmod 644 "$dir"/*.py
as_user mkdir "$dir/wheels"
as_user /usr/bin/python3 "$dir/mkwheel.py" "$dir/wheels" tinypkg 1.0
as_user /usr/bin/python3 "$dir/mkwheel.py" "$dir/wheels" otherpkg 2.0

# build, then reuse
t0=$(ms_now)
rc=0; out=$(sbx --venv v1 --package tinypkg --json --file "$dir/use.py" 2>"$dir/err1") || rc=$?
t1=$(ms_now)
check "offline install through PIP_NO_INDEX/PIP_FIND_LINKS: exit 0 (got $rc; $(tail -3 "$dir/err1"))" test "$rc" = 0
check "the candidate imports the package from the venv" \
        test "$(jq -r .stdout <<<"$out")" = "1.0 $cache/v1"
check "a venv under /tmp does not downgrade the tier ($(jq -r .tier <<<"$out"))" \
        grep -qx 'helper\|bwrap' <<<"$(jq -r .tier <<<"$out")"
check "the build was announced" grep -q 'building venv v1' "$dir/err1"
stamp1=$(stat -c %Y.%i "$cache/v1/.sbx-stamp")
rc=0; out=$(sbx --venv v1 --package tinypkg --package tinypkg --json --file "$dir/use.py" 2>"$dir/err2") || rc=$?
t2=$(ms_now)
check "same packages (deduplicated): exit 0" test "$rc" = 0
check "same packages: no rebuild" test "$(grep -c 'building venv' "$dir/err2")" = 0
check "same packages: stamp untouched" test "$(stat -c %Y.%i "$cache/v1/.sbx-stamp")" = "$stamp1"
diag "venv build $((t1 - t0)) ms, cached run $((t2 - t1)) ms"
check "cached run is much faster than the build ($((t2 - t1)) < $((t1 - t0)) ms)" \
        test $((t2 - t1)) -lt $(( (t1 - t0) / 2 ))

rc=0; sbx --venv v1 --package tinypkg --package otherpkg -q --file "$dir/use.py" 2>"$dir/err3" >/dev/null || rc=$?
check "changed packages: exit 0" test "$rc" = 0
check "changed packages: the stamp changed" grep -q 'package otherpkg' "$cache/v1/.sbx-stamp"
rc=0; sbx --venv v1 --package tinypkg --package otherpkg --rebuild --file "$dir/use.py" 2>"$dir/err4" >/dev/null || rc=$?
check "--rebuild rebuilds" grep -q 'building venv v1' "$dir/err4"

# a failed install: a clear error with pip's words, no stamp
rc=0; sbx --venv broken --package nosuchpkg-sbx --file "$dir/use.py" 2>"$dir/err5" >/dev/null || rc=$?
check "failed install: exit 3 (got $rc)" test "$rc" = 3
check "failed install: the error quotes pip" grep -qi 'nosuchpkg-sbx' "$dir/err5"
check "failed install: no stamp" test ! -e "$cache/broken/.sbx-stamp"

# provisioning; two sbx-runs at once build once; the venv is read-only inside
rm -f "$cache/builds"
sbx -q --venv prov --provision "$dir/prov.py" --json --tier bwrap --file "$dir/seeprov.py" >"$dir/a.json" 2>"$dir/a.err" &
pa=$!
sbx -q --venv prov --provision "$dir/prov.py" --json --tier bwrap --file "$dir/seeprov.py" >"$dir/b.json" 2>"$dir/b.err" &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
check "concurrent sbx-runs both succeed ($ra, $rb; $(cat "$dir/a.err" "$dir/b.err"))" test "$ra$rb" = 00
check "concurrent sbx-runs: one build" test "$(cat "$cache/builds" 2>/dev/null | wc -l)" = 1
check "provisioning ran with SANDBOX_VENV set" test "$(jq -r .stdout "$dir/a.json" | head -1)" = yes
check "bwrap: the venv is read-only to the candidate" \
        grep -q 'venv read-only' <<<"$(jq -r .stdout "$dir/b.json")"
check "bwrap: nothing was planted in the venv" test ! -e "$cache/prov/planted.py"
if as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --probe --json | jq -e '.tiers[0].works' >/dev/null; then
        out=$(sbx -q --venv prov --provision "$dir/prov.py" --json --tier helper --file "$dir/seeprov.py")
        check "helper: the venv is read-only to the candidate" grep -q 'venv read-only' <<<"$(jq -r .stdout <<<"$out")"
else
        not_ok "helper: the venv is read-only to the candidate (the helper tier does not work here)"
fi
cp "$dir/prov.py" "$dir/prov2.py"; echo '# changed' >> "$dir/prov2.py"; chmod 644 "$dir/prov2.py"
sbx -q --venv prov --provision "$dir/prov2.py" --file "$dir/seeprov.py" >/dev/null 2>&1
check "changed provisioning content: rebuilt" test "$(wc -l < "$cache/builds")" = 2

rc=0; sbx --venv ../evil --file "$dir/use.py" 2>/dev/null || rc=$?
check "a venv name with a slash is refused: exit 2 (got $rc)" test "$rc" = 2
rc=0; sbx --venv v1 --provision "$dir/missing.py" --file "$dir/use.py" 2>"$dir/err6" || rc=$?
check "a missing provisioning file: exit 2 naming it (got $rc)" \
        test "$rc" = 2 -a -n "$(grep missing.py "$dir/err6")"
done_testing
