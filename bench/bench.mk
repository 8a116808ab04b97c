# Benchmarks: `make bench` runs every bench/*.sh in name order (each part
# adds its own script; ISOLATE=/path/to/isolate adds isolate to
# bench/compare.sh). They need root to install a setuid helper in a temp
# root, and measure as an unprivileged user. evalplus-compare.sh is not one
# of them: it is a fidelity check that takes a samples file (docs/suites.md),
# and without one it stopped `make bench` half way.
BENCH_SCRIPTS := $(sort $(filter-out bench/evalplus-compare.sh,$(wildcard bench/*.sh)))
TIMERUN := $(BUILD)/bench/timerun

$(TIMERUN): $(BUILD)/bench/timerun.o
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^

.PHONY: bench
bench: all $(TIMERUN)
	@set -e; for s in $(BENCH_SCRIPTS); do \
		echo "== $$s"; BUILD=$(BUILD) TIMERUN=$(TIMERUN) ISOLATE=$(ISOLATE) $$s; \
	done
