"""probe-tiers.py FILE: `sbx-run --probe --json` output as one line per
tier, "NAME yes|no REASON", so shell tests can grep it. Accepts a list of
tier objects (under any key) naming themselves by "tier" or "name", or an
object keyed by tier name; the verdict is the first boolean among the usual
keys. Exits 1 with a message when FILE is not JSON or names no tier."""
import json
import sys

TIERS = ("helper", "bwrap", "unshare", "unshare-root", "rlimit")
VERDICT_KEYS = ("works", "ok", "available", "usable", "supported")
REASON_KEYS = ("why", "reason", "message", "detail", "error")


def entries(doc):
    """Yields (name, dict) for every tier description found in doc."""
    if isinstance(doc, dict):
        for key, val in doc.items():
            if key in TIERS and isinstance(val, dict):
                yield key, val
        name = doc.get("tier", doc.get("name"))
        if name in TIERS:
            yield name, doc
        for val in doc.values():
            if isinstance(val, (dict, list)):
                yield from entries(val)
    elif isinstance(doc, list):
        for val in doc:
            yield from entries(val)


def main():
    try:
        doc = json.load(open(sys.argv[1]))
    except (OSError, ValueError) as e:
        sys.exit("probe-tiers: %s: %s" % (sys.argv[1], e))
    seen = {}
    for name, d in entries(doc):
        if name in seen:
            continue
        verdict = next((d[k] for k in VERDICT_KEYS if isinstance(d.get(k), bool)), None)
        if verdict is None:
            continue
        reason = next((str(d[k]) for k in REASON_KEYS if d.get(k)), "")
        seen[name] = "%s %s %s" % (name, "yes" if verdict else "no", " ".join(reason.split()))
    if not seen:
        sys.exit("probe-tiers: %s: no tier with a verdict in it" % sys.argv[1])
    for name in TIERS:
        if name in seen:
            print(seen[name])


main()
