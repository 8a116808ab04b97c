#!/usr/bin/env python3
"""Score HumanEval samples from Python: python3 examples/python_evaluate.py
PROBLEMS.jsonl[.gz] [SAMPLES.jsonl]  (no samples: the reference solutions)."""
import sys

import sbx

problems = sys.argv[1]
samples = sys.argv[2] if len(sys.argv) > 2 else None
run = sbx.evaluate_iter("humaneval", samples=samples, problems=problems, k=(1, 10), jobs=2)
for record in run:                      # each result as it ends
    if not record["passed"]:
        print("FAIL", record["task_id"], record["result"][:70])
print("passed %d of %d, tier %s" % (run.summary["passed"], run.summary["samples"],
                                    run.summary["tier"]))
print(run.summary["pass_at_k"])
