/* sbx-run: parse, dispatch, turn errors into a message and an exit code. */
#include <stdio.h>

#include "cli.h"

/* Until the suite layer (frontend/suite_cli.c) is linked in, these keep
 * sbx-run building; the real definitions replace them. */
__attribute__((weak)) int suite_cli_main(struct cli_opts *opts)
{
        fprintf(stderr, "sbx-run: --suite: not built into this sbx-run\n");
        return SBX_EXIT_USAGE;
}

__attribute__((weak)) int merge_cli_main(struct cli_opts *opts)
{
        fprintf(stderr, "sbx-run: merge: not built into this sbx-run\n");
        return SBX_EXIT_USAGE;
}

int main(int argc, char **argv)
{
        struct cli_opts opts;
        struct sbx_err err = { 0 };
        int rc;

        if (cli_parse(argc, argv, &opts, &err) < 0) {
                fprintf(stderr, "sbx-run: %s\n", err.msg);
                cli_opts_free(&opts);
                return err.exit_code;
        }
        switch (opts.mode) {
        case CLI_MODE_HELP: cli_usage(stdout); rc = SBX_EXIT_OK; break;
        case CLI_MODE_VERSION: printf("sbx-run %s\n", SBX_VERSION); rc = SBX_EXIT_OK; break;
        case CLI_MODE_FILE: rc = run_cli_file(&opts); break;
        case CLI_MODE_ARGV: rc = run_cli_argv(&opts); break;
        case CLI_MODE_PROBE: rc = run_cli_probe(&opts); break;
        case CLI_MODE_SUITE: rc = suite_cli_main(&opts); break;
        case CLI_MODE_MERGE: rc = merge_cli_main(&opts); break;
        case CLI_MODE_SERVE: rc = serve_main(&opts, argc, argv); break;
        default: cli_usage(stderr); rc = SBX_EXIT_USAGE; break;
        }
        cli_opts_free(&opts);
        if (fflush(stdout) != 0 && rc == SBX_EXIT_OK)
                rc = SBX_EXIT_SANDBOX;
        return rc;
}
