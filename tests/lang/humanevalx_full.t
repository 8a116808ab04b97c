#!/bin/bash
# HumanEval-X, the whole suites (make check-full): the 164 canonical
# solutions of each language, helper and bwrap, cold and warm cache
# (humanevalx.sh says what is compared).
TASKS=""
. "$(dirname "$0")/humanevalx.sh"
humanevalx_main
