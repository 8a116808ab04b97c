#!/bin/bash
# evalplus-style samples ({task_id, solution}: the whole function, prompt
# included) on real model output: LLMDebugger's StarCoder and GPT-3.5 seeds
# score 62/164 and 120/164 in a clean process (shared/suites README).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
require_data "$HE/model_samples/ldb_humaneval_seed_starcoder.jsonl" \
        "$HE/model_samples/ldb_humaneval_seed_gpt-3.5-turbo-0613.jsonl"
D=$(user_tmpdir)

for pair in starcoder:62 gpt-3.5-turbo-0613:120; do
        model=${pair%%:*} want=${pair##*:}
        as_user "$SBX_RUN" --suite humaneval --problems "$HE/HumanEval.jsonl.gz" \
                --samples "$HE/model_samples/ldb_humaneval_seed_$model.jsonl" \
                --out "$D/$model.jsonl" --json --no-progress > "$D/$model.json" 2> "$D/$model.err"
        is "$model: exits 0" "$?" 0
        is "$model: $want/164 passed" \
                "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["passed"])' "$D/$model.json")" \
                "$want"
done
done_testing
