"""Where the test suite's time goes: the lines `RMSC_TEST_TIMES=FILE pytest ...` wrote, summed.

Each line of FILE is one test (tests/conftest.py writes it): node id, wall seconds, CPU
seconds of the test process and of everything it started (servers, Dask workers), the load
average, the xdist worker. Printed: the files by wall time, then the slowest tests, each with
its CPU seconds; a test whose CPU is far below its wall waited (on a server, a browser, a
worker) rather than computed.

    RMSC_TEST_TIMES=/tmp/times.tsv .venv/bin/python -m pytest -q -m "not browser"
    .venv/bin/python tools/suite_times.py /tmp/times.tsv --top 30
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="the file RMSC_TEST_TIMES named")
    parser.add_argument("--top", type=int, default=20, help="how many tests to list")
    args = parser.parse_args(argv)
    rows = read(args.file)
    if not rows:
        raise SystemExit(f"{args.file}: no test lines (was RMSC_TEST_TIMES set?)")
    wall_total = sum(w for _, w, _ in rows)
    cpu_total = sum(c for _, _, c in rows)
    files = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for nodeid, wall, cpu in rows:
        f = files[nodeid.split("::")[0]]
        f[0] += 1
        f[1] += wall
        f[2] += cpu
    print(f"{len(rows)} tests: {wall_total:.0f} s of test wall time, {cpu_total:.0f} CPU s")
    table("Files by wall time", ["file", "tests", "wall s", "CPU s", "share of wall"],
          [(name, n, f"{w:.1f}", f"{c:.1f}", f"{w / wall_total:.0%}")
           for name, (n, w, c) in sorted(files.items(), key=lambda kv: -kv[1][1])])
    table(f"The {args.top} slowest tests", ["test", "wall s", "CPU s"],
          [(nodeid, f"{w:.1f}", f"{c:.1f}")
           for nodeid, w, c in sorted(rows, key=lambda r: -r[1])[:args.top]])


if __name__ == "__main__":
    main()
