"""Where the test suite's time goes: the lines `RMSC_TEST_TIMES=FILE pytest ...` wrote, summed.

Each line of FILE is one test (tests/conftest.py writes it): node id, wall seconds, CPU
seconds of the test process and of everything it started (servers, Dask workers), the load
average, the xdist worker. Printed: the files by wall time, then the slowest tests, each with
its CPU seconds; a test whose CPU is far below its wall waited (on a server, a browser, a
worker) rather than computed.

    RMSC_TEST_TIMES=/tmp/times.tsv .venv/bin/python -m pytest -q -m "not browser"
    .venv/bin/python tools/suite_times.py /tmp/times.tsv --top 30

With ``--against BEFORE.tsv`` (the same tests run on another tree, e.g. the main branch's
worktree), it prints the two side by side instead: CPU seconds per file and per test before
and after, and their ratio, for the tests both files hold (a test in one only is listed
below the tables).
"""

import argparse
import collections


def read(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                rows.append((parts[0], float(parts[1]), float(parts[2])))
    return rows


def table(title, header, rows):
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")


def per_file(rows):
    """{file: (tests, wall s, CPU s)} of :func:`read`'s rows."""
    files = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for nodeid, wall, cpu in rows:
        f = files[nodeid.split("::")[0]]
        f[0] += 1
        f[1] += wall
        f[2] += cpu
    return {name: tuple(v) for name, v in files.items()}


def _ratio(after, before):
    return f"{after / before:.2f}" if before > 0 else "-"


def compare(before_rows, after_rows):
    """Print the CPU seconds of the tests both runs hold, per file and per test, before and
    after; return the names of the tests only one of them holds."""
    before = {nodeid: cpu for nodeid, _, cpu in before_rows}
    after = {nodeid: cpu for nodeid, _, cpu in after_rows}
    both = [n for n in after if n in before]
    if not both:
        raise SystemExit("no test is in both files: nothing to compare")
    files = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for nodeid in both:
        f = files[nodeid.split("::")[0]]
        f[0] += 1
        f[1] += before[nodeid]
        f[2] += after[nodeid]
    total_before, total_after = sum(before[n] for n in both), sum(after[n] for n in both)
    print(f"{len(both)} tests in both: {total_before:.0f} CPU s before, "
          f"{total_after:.0f} after ({_ratio(total_after, total_before)})")
    table("CPU seconds per file", ["file", "tests", "before", "after", "after / before"],
          [(name, n, f"{b:.1f}", f"{a:.1f}", _ratio(a, b))
           for name, (n, b, a) in sorted(files.items(), key=lambda kv: -kv[1][1])])
    table("CPU seconds per test", ["test", "before", "after", "after / before"],
          [(n, f"{before[n]:.1f}", f"{after[n]:.1f}", _ratio(after[n], before[n]))
           for n in sorted(both, key=lambda n: -before[n])])
    alone = sorted(set(before) ^ set(after))
    for n in alone:
        print(f"only {'before' if n in before else 'after'}: {n}")
    return alone


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="the file RMSC_TEST_TIMES named")
    parser.add_argument("--top", type=int, default=20, help="how many tests to list")
    parser.add_argument("--against", metavar="BEFORE",
                        help="another run's file: print CPU seconds before and after")
    args = parser.parse_args(argv)
    rows = read(args.file)
    if not rows:
        raise SystemExit(f"{args.file}: no test lines (was RMSC_TEST_TIMES set?)")
    if args.against:
        compare(read(args.against), rows)
        return
    wall_total = sum(w for _, w, _ in rows)
    cpu_total = sum(c for _, _, c in rows)
    files = per_file(rows)
    print(f"{len(rows)} tests: {wall_total:.0f} s of test wall time, {cpu_total:.0f} CPU s")
    table("Files by wall time", ["file", "tests", "wall s", "CPU s", "share of wall"],
          [(name, n, f"{w:.1f}", f"{c:.1f}", f"{w / wall_total:.0%}")
           for name, (n, w, c) in sorted(files.items(), key=lambda kv: -kv[1][1])])
    table(f"The {args.top} slowest tests", ["test", "wall s", "CPU s"],
          [(nodeid, f"{w:.1f}", f"{c:.1f}")
           for nodeid, w, c in sorted(rows, key=lambda r: -r[1])[:args.top]])


if __name__ == "__main__":
    main()
