"""A checker for CodeContests' 1025_B (Weakened Common Divisor), in
testlib's convention: `checker input output answer`, exit 0 accepted, 1
wrong answer, 2 presentation error, 3 the checker failed. Any divisor
greater than 1 of one number of every pair is right; -1 only when the
answer is -1. With it, the reference solution passes all 151 tests that
SandboxFusion's exact comparison fails 11 of."""
import sys


def main():
    try:
        inp = open(sys.argv[1]).read().split()
        out = open(sys.argv[2]).read().split()
        ans = open(sys.argv[3]).read().split()
        n = int(inp[0])
        pairs = [(int(inp[1 + 2 * i]), int(inp[2 + 2 * i])) for i in range(n)]
        expected = int(ans[0])
    except (IndexError, ValueError, OSError) as e:
        print(f"bad input or answer: {e}", file=sys.stderr)
        sys.exit(3)
    if len(out) != 1:
        print(f"expected one integer, found {len(out)} tokens", file=sys.stderr)
        sys.exit(2)
    try:
        w = int(out[0])
    except ValueError:
        print(f"expected an integer, found {out[0][:40]!r}", file=sys.stderr)
        sys.exit(2)
    if expected == -1 or w == -1:
        ok = w == expected
    else:
        ok = w > 1 and all(a % w == 0 or b % w == 0 for a, b in pairs)
    print("ok" if ok else f"wrong answer {w}", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
