#!/usr/bin/env python3
"""Joins the tables of two sets of bench reports (old and new, one or more rounds each) cell by
cell and prints a markdown comparison: every numeric cell with the old and new medians and their
ratio. Used by ops/bench/compare; reads reports written by dev.flows.ops.bench.Bench."""
import argparse
import re
import statistics
import sys

NUMBER = re.compile(r"^[+-]?[\d,]*\.?\d+")


def tables(path):
    """Yields (table number, heading, header cells, row cells) for every table row of a markdown
    report; the number tells apart two tables of one shape that follow each other."""
    heading, header, table = "", None, 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                heading, header = line.lstrip("#").strip(), None
                continue
            if not line.startswith("|"):
                header = None
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header, table = cells, table + 1
            elif all(set(c) <= set("-: ") for c in cells):
                continue
            else:
                yield table, heading, header, cells


def number(cell):
    m = NUMBER.match(cell.replace(" ", ""))
    if not m or not any(ch.isdigit() for ch in m.group(0)):
        return None
    return float(m.group(0).replace(",", ""))


def labelled(rows):
    """Names each row of one table by its first cell; where the table has several rows of the same
    first cell (one shape at several concurrencies), by that cell and the second column's value,
    then by its place among rows still alike, so no two rows of a table share a name and no median
    mixes rows."""
    firsts = [cells[0] for _, _, cells in rows]
    names = []
    for heading, header, cells in rows:
        name = cells[0]
        if firsts.count(name) > 1 and len(cells) > 1:
            name = f"{name}, {header[1]} {cells[1]}"
        names.append(name)
    counts = {name: names.count(name) for name in names}
    seen = {}
    for i, name in enumerate(names):
        seen[name] = seen.get(name, 0) + 1
        if counts[name] > 1:
            names[i] = f"{name} #{seen[name]}"
    return zip(names, rows)


def blocks(path):
    """Groups a report's table rows by table. A heading holding more than one table of the same
    header (DBOS's direct and queue modes) names the second and later ones apart, counted per
    report, so each is compared with its counterpart, never pooled with the first."""
    block, current, shapes = [], None, {}
    for table, heading, header, cells in tables(path):
        if table != current:
            if block:
                yield block
            block, current = [], table
            shape = (heading, tuple(header))
            shapes[shape] = shapes.get(shape, 0) + 1
            if shapes[shape] > 1:
                name = f"{heading} (table {shapes[shape]} of this shape)"
        if shapes[shape] > 1:
            heading = name
        block.append((heading, header, cells))
    if block:
        yield block


def collect(paths):
    """(heading, row name, column) -> list of numbers over rounds, in first-seen order."""
    values, order = {}, []
    for p in paths:
        for block in blocks(p):
            for row, (heading, header, cells) in labelled(block):
                if heading in ("Environment",):
                    continue
                for col, cell in zip(header[1:], cells[1:]):
                    v = number(cell)
                    if v is None:
                        continue
                    key = (heading, row, col)
                    if key not in values:
                        values[key] = []
                        order.append(key)
                    values[key].append(v)
    return values, order


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old-rev", required=True)
    ap.add_argument("--new-rev", required=True)
    ap.add_argument("reports", nargs="+", help="old=PATH or new=PATH")
    a = ap.parse_args()
    old = [r.split("=", 1)[1] for r in a.reports if r.startswith("old=")]
    new = [r.split("=", 1)[1] for r in a.reports if r.startswith("new=")]
    ov, order = collect(old)
    nv, _ = collect(new)
    out = sys.stdout
    out.write("# Bench comparison: old and new code in one run\n\n")
    out.write(
        f"Written by `ops/bench/compare`. Old: `{a.old_rev}`; new: `{a.new_rev}`; "
        f"{len(old)} round(s) each, alternating old/new on one Postgres, a fresh database each. "
        "Values are medians over rounds; `new/old` above 1 is more of the quantity (for latencies "
        "and commit counts more is worse, for rates it is better).\n\n"
    )
    heading = None
    for key in order:
        h, row, col = key
        if key not in nv:
            continue
        if h != heading:
            heading = h
            out.write(f"\n## {h}\n\n| row | column | old | new | new/old |\n|---|---|---|---|---|\n")
        o, n = statistics.median(ov[key]), statistics.median(nv[key])
        ratio = f"{n / o:.2f}" if o else "-"
        out.write(f"| {row} | {col} | {o:,.2f} | {n:,.2f} | {ratio} |\n")
    missing = [k for k in order if k not in nv]
    if missing:
        out.write("\nCells only the old report has: " + str(len(missing)) + "\n")


if __name__ == "__main__":
    main()
