#!/bin/bash
# The seed fell silently from bwrap to a weaker tier when its interpreter
# or venv lived under /tmp or $HOME, or was reached through alias symlinks.
# sbx binds what the run needs wherever it is: these runs must get the
# strong tiers (--require-tier makes a downgrade an error, not a pass).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
dir=$(user_tmpdir)
hdir=$home/.sbx-binds-test.$$
_tmpdirs="${_tmpdirs:-} $hdir"
probe=$(as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --probe --json)
strong=()
for t in helper bwrap; do
        if jq -e --arg t $t '.tiers[] | select(.tier == $t) | .works' <<<"$probe" >/dev/null; then
                strong+=("$t")
        else
                not_ok "$t works here (needed by this test): $(jq -r --arg t $t '.tiers[] | select(.tier == $t) | .why' <<<"$probe")"
        fi
done

cat > "$dir/who.py" <<'PY'
import sys
print(sys.executable)
PY
chmod 644 "$dir/who.py"

# a chain like pyenv/uv aliases: relative and absolute links, an alias
# directory, ending in a venv whose python links to the system's
make_chain() {
        local base=$1
        as_user sh -e -c "
                /usr/bin/python3 -m venv --without-pip '$base/venv'
                mkdir -p '$base/real-bin' '$base/alias'
                ln -s '$base/venv/bin/python' '$base/real-bin/py'
                ln -s ../real-bin/py '$base/alias/python3'
                ln -s '$base/alias' '$base/alias-dir'
        "
}
make_chain "$dir/chain"
make_chain "$hdir/chain"

for tier in "${strong[@]}"; do
        for base in "$dir/chain" "$hdir/chain"; do
                for py in "$base/alias/python3" "$base/alias-dir/python3" "$base/venv/bin/python"; do
                        rc=0
                        out=$(as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier "$tier" \
                                --json --python "$py" --file "$dir/who.py" 2>&1) || rc=$?
                        check "$tier: interpreter $py runs (rc $rc: $(jq -r '.summary? // empty' <<<"$out" 2>/dev/null || echo "$out"))" \
                                test "$rc" = 0
                done
        done
        # venv cache under $HOME (the default ~/.cache/sbx) and under /tmp
        for cache in "" "$dir/cache"; do
                rc=0
                out=$(as_user env SBX_HELPER="$SBX_HELPER" ${cache:+SBX_CACHE=$cache} \
                        "$SBX_RUN" -q --tier "$tier" --json --venv "bindtest$$" \
                        --file "$dir/who.py" 2>&1) || rc=$?
                check "$tier: venv under ${cache:-\$HOME/.cache/sbx}, no downgrade (rc $rc, tier $(jq -r '.tier? // empty' <<<"$out" 2>/dev/null))" \
                        test "$rc" = 0 -a "$(jq -r .tier <<<"$out" 2>/dev/null)" = "$tier"
        done
done
rm -rf "$home/.cache/sbx/bindtest$$" "$home/.cache/sbx/.bindtest$$.lock"
done_testing
