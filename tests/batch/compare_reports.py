#!/usr/bin/env python3
"""Compares two `impetus batch` output folders: report.json, report.txt and the JUnit files must
be identical apart from timings, the rank column and the `execution` block, and every run's
summary.json identical apart from its timing figures (batch-format.md promises this for --jobs
and for MPI ranks).

usage: compare_reports.py DIR_A DIR_B
"""
import json
import re
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

TIMING_STATS = ("wall_seconds", "ms_per_step", "ms_per_step_by_phase")


def report_without_timings(path):
    report = json.loads(Path(path).read_text())
    report.pop("execution", None)
    for run in report["runs"]:
        run.pop("timings", None)
        run.pop("rank", None)
    return report


def text_without_timings(path):
    # The last two columns of the table are wall_s and rank.
    lines = []
    for line in Path(path).read_text().splitlines():
        cells = line.split()
        if len(cells) >= 8 and (cells[-2] == "wall_s" or re.fullmatch(r"[0-9.]+", cells[-2])):
            line = " ".join(cells[:-2])
        lines.append(line)
    return lines


def junit_without_timings(path):
    return re.sub(r' time="[0-9.]+"', "", Path(path).read_text())


def summary_without_timings(path):
    summary = json.loads(Path(path).read_text())
    for key in TIMING_STATS:
        summary["stats"].pop(key, None)
    return summary


def main():
    return main_with(Path(sys.argv[1]), Path(sys.argv[2]))


def main_with(a, b):
    problems = []
    ra, rb = report_without_timings(a / "report.json"), report_without_timings(b / "report.json")
    if ra != rb:
        problems.append("report.json differs beyond timings and ranks")
        for x, y in zip(ra["runs"], rb["runs"]):
            if x != y:
                problems.append(f"  first differing run: {json.dumps(x)[:400]}\n  vs {json.dumps(y)[:400]}")
                break
    if text_without_timings(a / "report.txt") != text_without_timings(b / "report.txt"):
        problems.append("report.txt differs beyond the wall_s and rank columns")
    if junit_without_timings(a / "junit.xml") != junit_without_timings(b / "junit.xml"):
        problems.append("junit.xml differs beyond time attributes")
    # Well-formed, one testcase per run, counts that agree with the report.
    suites = ElementTree.parse(b / "junit.xml").getroot()
    cases = suites.findall("./testsuite/testcase")
    totals = ra["totals"]
    if (suites.tag != "testsuites" or len(cases) != totals["runs"]
            or len(suites.findall("./testsuite/testcase/failure")) != totals["failed"]
            or len(suites.findall("./testsuite/testcase/error")) != totals["errors"]
            or suites.get("tests") != str(totals["runs"])):
        problems.append("junit.xml does not match the report's runs, failures and errors")
    for run in ra["runs"]:
        if not run.get("output"):
            continue
        sa, sb = a / run["output"] / "summary.json", b / run["output"] / "summary.json"
        if summary_without_timings(sa) != summary_without_timings(sb):
            problems.append(f"{run['id']}: summary.json differs beyond timings")
    ranks = {r.get("rank") for r in json.loads((b / "report.json").read_text())["runs"]}
    print(f"compared {len(ra['runs'])} runs; ranks in {b}: {sorted(ranks)}")
    if problems:
        print("\n".join(problems))
        return 1
    print("identical apart from timings and ranks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
