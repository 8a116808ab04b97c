# shellcheck shell=bash
# Prepares (as root) the environment tests/lib/lib.sh describes: the test
# users, and a fresh root-owned temp root with a setuid helper built to read
# its config from inside that root. Sourced by tests/run-integration.sh and
# bench/helper-bench.sh; every function dies loudly instead of half-working.

SBX_TEST_USER=${SBX_TEST_USER:-sbxtest}
SBX_TEST_OTHER_USER=${SBX_TEST_OTHER_USER:-sbxother}
SBX_TEST_GROUP=${SBX_TEST_GROUP:-sbxtest-allowed}

setup_die() { echo "setup-root: $*" >&2; exit 1; }

# The allowed user is in the helper's group as a supplementary group only, so
# a test can see that the sandbox drops supplementary groups.
setup_users() {
        getent group "$SBX_TEST_GROUP" >/dev/null ||
                groupadd --system "$SBX_TEST_GROUP" || setup_die "groupadd $SBX_TEST_GROUP"
        id "$SBX_TEST_USER" >/dev/null 2>&1 ||
                useradd --create-home --user-group --shell /bin/sh \
                        -G "$SBX_TEST_GROUP" "$SBX_TEST_USER" || setup_die "useradd $SBX_TEST_USER"
        id -nG "$SBX_TEST_USER" | tr ' ' '\n' | grep -qx "$SBX_TEST_GROUP" ||
                usermod -a -G "$SBX_TEST_GROUP" "$SBX_TEST_USER" || setup_die "usermod"
        id "$SBX_TEST_OTHER_USER" >/dev/null 2>&1 ||
                useradd --create-home --user-group --shell /bin/sh \
                        "$SBX_TEST_OTHER_USER" || setup_die "useradd $SBX_TEST_OTHER_USER"
        ! id -nG "$SBX_TEST_OTHER_USER" | tr ' ' '\n' | grep -qx "$SBX_TEST_GROUP" ||
                setup_die "$SBX_TEST_OTHER_USER must not be in $SBX_TEST_GROUP"
}

# write_helper_conf SRC DEST GROUP PREFIX...: the repo's policy/helper.conf
# with our group and the test defaults (values chosen to differ from any
# built-in default, so a test can tell the config was read), plus extra
# ro_bind_prefix lines. Root-owned, 0644, as the helper demands.
SETUP_CONF_KEYS="group default_timeout max_timeout default_cpu max_cpu
default_memory max_memory default_nproc max_nproc default_fsize max_fsize
default_nofile max_nofile default_tmpfs_size max_tmpfs_size max_zygote_life"
write_helper_conf() {
        local src=$1 dest=$2 group=$3; shift 3
        local filter='^[[:space:]]*('$(echo $SETUP_CONF_KEYS | tr ' ' '|')')[[:space:]]*='
        {
                if [ -f "$src" ]; then
                        echo "# from $src, test values below"
                        grep -Ev "$filter" "$src"
                fi
                cat <<CONF
group = $group
default_timeout = 23
max_timeout = 120
default_cpu = 17
max_cpu = 60
default_memory = 1610612736
max_memory = 8589934592
default_nproc = 77
max_nproc = 1024
default_fsize = 52428800
max_fsize = 1073741824
default_nofile = 200
max_nofile = 4096
default_tmpfs_size = 41943040
max_tmpfs_size = 1073741824
max_zygote_life = 1800
CONF
                local p
                for p in "$@"; do echo "ro_bind_prefix = $p"; done
        } > "$dest" || setup_die "write $dest"
        chown root:root "$dest" && chmod 0644 "$dest" || setup_die "chmod $dest"
}

# build_helper REPO ROOT CONF: builds sbx-helper with CONF compiled in, under
# ROOT/build, and installs it setuid root as ROOT/libexec/sbx-helper.
build_helper() {
        local repo=$1 root=$2 conf=$3
        make -s -C "$repo" HELPER_CONF="$conf" BUILD="$root/build" \
                "$root/build/sbx-helper" >&2 || setup_die "building the helper failed"
        install -D -o root -g root -m 4755 "$root/build/sbx-helper" \
                "$root/libexec/sbx-helper" || setup_die "install helper"
}

# setup_root REPO: creates and fills SBX_TEST_ROOT, exports lib.sh's variables.
setup_root() {
        local repo=$1
        SBX_TEST_ROOT=$(mktemp -d /tmp/sbx-root.XXXXXX) || setup_die "mktemp"
        chmod 0755 "$SBX_TEST_ROOT" || setup_die "chmod root"
        mkdir -p "$SBX_TEST_ROOT"/{bin,etc,libexec,data,share} || setup_die "mkdir"
        write_helper_conf "$repo/policy/helper.conf" "$SBX_TEST_ROOT/etc/helper.conf" \
                "$SBX_TEST_GROUP" "$SBX_TEST_ROOT/data" "$SBX_TEST_ROOT/share"
        build_helper "$repo" "$SBX_TEST_ROOT" "$SBX_TEST_ROOT/etc/helper.conf"
        # the zygote the installed helper has built in (frontend/warm/zygote/, joined)
        export SBX_ZYGOTE_PY=$SBX_TEST_ROOT/build/gen/zygote.py
        export SBX_TEST_ROOT SBX_TEST_USER SBX_TEST_OTHER_USER SBX_TEST_GROUP
        export SBX_HELPER=$SBX_TEST_ROOT/libexec/sbx-helper
        export SBX_RUN=$SBX_TEST_ROOT/bin/sbx-run
        export SBX_DATA=$SBX_TEST_ROOT/data
        export SBX_REPO=$repo
}

# The test data: the suites sbx ships (REPO/suites), then what it does not
# ship (ClassEval, CC BY-NC; the real model outputs) from $SBX_TEST_DATA,
# default REPO/../shared/suites ($SBX_SHARED/suites when only SBX_SHARED is
# set, its older name). Tests that need the unshipped data skip, saying so,
# when it is absent (lib.sh require_data).
SETUP_UNSHIPPED_DATA="classeval humaneval/model_samples livecodebench"
setup_test_data_dir() {
        local repo=$1
        if [ -n "${SBX_TEST_DATA:-}" ]; then echo "$SBX_TEST_DATA"
        elif [ -n "${SBX_SHARED:-}" ]; then echo "$SBX_SHARED/suites"
        else echo "$repo/../shared/suites"; fi
}

# setup_root_data REPO BUILD: the frontend, the test tree and the suites,
# keeping the $SBX_DATA/<suite>/<file> layout.
setup_root_data() {
        local repo=$1 build=$2 extra d
        extra=$(setup_test_data_dir "$repo")
        if [ -x "$build/sbx-run" ]; then
                install -m 0755 "$build/sbx-run" "$SBX_RUN" || setup_die "install sbx-run"
        fi
        # sbx-run --http runs the sbx-http beside it
        if [ -x "$build/sbx-http" ]; then
                install -m 0755 "$build/sbx-http" "$SBX_TEST_ROOT/bin/sbx-http" || setup_die "install sbx-http"
        fi
        cp -a "$repo/tests" "$SBX_TEST_ROOT/tests" || setup_die "copy tests"
        [ -d "$repo/suites" ] || setup_die "no $repo/suites: the shipped benchmark data is missing"
        cp -a "$repo/suites/." "$SBX_DATA/" || setup_die "copy suites"
        for d in $SETUP_UNSHIPPED_DATA; do
                if [ -d "$extra/$d" ]; then
                        mkdir -p "$SBX_DATA/$(dirname "$d")" &&
                                cp -a "$extra/$d" "$SBX_DATA/$d" || setup_die "copy $extra/$d"
                else
                        echo "setup-root: no $extra/$d (SBX_TEST_DATA): the tests that need it skip" >&2
                fi
        done
        # the Python package, for tests/python (PYTHONPATH=$SBX_TEST_ROOT/python)
        cp -a "$repo/python" "$SBX_TEST_ROOT/python" || setup_die "copy python"
        chown -R root:root "$SBX_TEST_ROOT/tests" "$SBX_TEST_ROOT/python" "$SBX_DATA" &&
                chmod -R a+rX,go-w "$SBX_TEST_ROOT/tests" "$SBX_TEST_ROOT/python" "$SBX_DATA" ||
                setup_die "permissions of the test root"
}

teardown_root() {
        [ -n "${SBX_TEST_ROOT:-}" ] && [ -d "$SBX_TEST_ROOT" ] || return 0
        case $SBX_TEST_ROOT in /tmp/sbx-root.*) rm -rf "$SBX_TEST_ROOT" ;; esac
}
