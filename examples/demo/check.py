#!/usr/bin/env python3
"""Compares a demo run's results with what each demo sample should score.

usage: check.py RESULTS.jsonl EXPECTED.jsonl

Prints a per-task table (samples, passed, and what kind of sample failed)
and every sample whose verdict differs from examples/demo/expected.jsonl,
then exits 1 if any did. Results are matched to samples by sbx_index (the
sample's position in samples.jsonl). A sample with "passed_in" may pass in
those tiers (they lack the isolation it probes), so either verdict is
accepted there.
"""
import json
import sys


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    results = load_jsonl(argv[1])
    expected = load_jsonl(argv[2])
    by_index = {r["sbx_index"]: r for r in results}
    tiers = sorted({r.get("tier", "?") for r in results})
    tasks, mismatches, missing = {}, [], []

    for i, exp in enumerate(expected):
        res = by_index.get(i)
        row = tasks.setdefault(exp["task_id"], {"n": 0, "passed": 0, "failed_kinds": []})
        if res is None:
            missing.append(i)
            continue
        row["n"] += 1
        if res["task_id"] != exp["task_id"]:
            mismatches.append(f"sample {i}: result is for {res['task_id']}, expected {exp['task_id']}")
            continue
        if res["passed"]:
            row["passed"] += 1
        else:
            row["failed_kinds"].append(exp["kind"])
        ok = res["passed"] == exp["passed"] or res.get("tier") in exp.get("passed_in", [])
        if not ok:
            mismatches.append(f"sample {i} ({exp['task_id']}, {exp['kind']}): "
                              f"passed={res['passed']}, expected {exp['passed']} "
                              f"(result: {res.get('result')!r}, tier {res.get('tier')})")

    print(f"{'task':10} {'samples':>7} {'passed':>6}  failed samples")
    for task_id, row in sorted(tasks.items(), key=lambda kv: int(kv[0].split("/")[1])):
        print(f"{task_id:10} {row['n']:7d} {row['passed']:6d}  {', '.join(row['failed_kinds'])}")
    print(f"tier(s): {', '.join(tiers)}")
    for i in missing:
        mismatches.append(f"sample {i}: no result line")
    if mismatches:
        print(f"demo: {len(mismatches)} sample(s) did not score as expected:")
        for m in mismatches:
            print("  " + m)
        return 1
    print(f"demo: all {len(expected)} samples scored as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
