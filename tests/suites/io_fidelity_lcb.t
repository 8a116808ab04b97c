#!/bin/bash
# io_fidelity.t with LiveCodeBench's comparison against LiveCodeBench's own
# check_correctness (make check-full: a second pass over the 31 samples).
SBX_IO_FIDELITY=livecodebench exec "$(dirname "$0")/io_fidelity.t"
