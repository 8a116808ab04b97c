"""sbx from Python: `from sbx import Sandbox` is a drop-in for llama-eval's
`Sandbox`, and sbx.evaluate scores a suite. Both talk to one long-lived
`sbx-run --serve` (the protocol is in docs/python.md and sbx-run(1))."""
from ._client import SbxError, find_sbx_run
from ._evaluate import Evaluation, evaluate, evaluate_iter
from ._sandbox import ExecResult, Sandbox

__all__ = ["Sandbox", "ExecResult", "SbxError", "evaluate", "evaluate_iter",
           "Evaluation", "find_sbx_run"]
__version__ = "0.1.0"
