#!/usr/bin/env python3
"""ctest driver for `mpirun -n K impetus batch` (batch-format.md, "MPI"), on this machine only
(loopback TCP, --oversubscribe).

  mpi_batch_test.py --cli IMPETUS --mpiexec MPIEXEC --ranks K --work DIR
      runs tests/batch/sweep.batch.json in one process and over K ranks and requires the same
      report.json, report.txt, JUnit file and summaries apart from timings and ranks.
  mpi_batch_test.py --cli IMPETUS --mpiexec MPIEXEC --kill [--no-recovery] --work DIR
      runs tests/batch/long.batch.json over 2 ranks, kills rank 1 (SIGKILL) while both ranks are
      in the middle of a run, and requires rank 0 to finish the batch: every run reported, the
      killed rank's run as an error, the others passed. With --no-recovery mpirun runs without
      --enable-recovery and ends the whole job when rank 1 dies: the reports rank 0 wrote while
      the batch ran must still list every run, those that never finished as errors.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare_reports  # noqa: E402


def mpi_command(mpiexec, ranks, extra=()):
    command = [mpiexec, "-n", str(ranks), "--oversubscribe", "--mca", "btl", "self,tcp",
               "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo", *extra]
    return command


def environment():
    env = dict(os.environ)
    # Open MPI refuses to start as root unless told (CI containers run as root).
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def batch_args(manifest, out):
    return ["batch", str(manifest), "--out", str(out), "--junit", str(out / "junit.xml"),
            "--no-meshes", "--quiet"]


def compare_mode(args):
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    manifest = HERE / "sweep.batch.json"
    serial = subprocess.run([args.cli, *batch_args(manifest, work / "serial")], env=environment())
    # The sweep holds one failing check and one invalid run on purpose: exit 1.
    if serial.returncode != 1:
        print(f"single-process batch: exit {serial.returncode}, expected 1")
        return 1
    out = work / f"ranks{args.ranks}"
    mpi = subprocess.run(mpi_command(args.mpiexec, args.ranks) + [args.cli, *batch_args(manifest, out)],
                         env=environment(), timeout=300)
    print(f"mpirun -n {args.ranks}: exit {mpi.returncode}")
    # The same exit status as the single process (a sanitizer report in a rank changes it).
    if mpi.returncode != serial.returncode:
        print(f"mpirun exit {mpi.returncode} differs from the single process's {serial.returncode}")
        return 1
    if not (out / "report.json").exists():
        print("no report.json from the MPI batch")
        return 1
    report = json.loads((out / "report.json").read_text())
    if report["execution"]["ranks"] != args.ranks:
        print(f"report says {report['execution']['ranks']} ranks, expected {args.ranks}")
        return 1
    return compare_reports.main_with(work / "serial", out)


def rank_processes(rank, marker):
    """PIDs of processes whose environment says OMPI_COMM_WORLD_RANK=rank and whose command line
    contains `marker`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker in cmdline and f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ:
            found.append(int(proc.name))
    return found


def kill_mode(args):
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    out = work / "killed"
    out.mkdir(parents=True)
    manifest = HERE / "long.batch.json"
    command = mpi_command(args.mpiexec, 2, [] if args.no_recovery else ["--enable-recovery"]) + [
        args.cli, *batch_args(manifest, out), "--rank-timeout", "3"]
    process = subprocess.Popen(command, env=environment())
    killed = None
    deadline = time.time() + 120
    # Both ranks are in the middle of a run when two trajectories are being written at once.
    while time.time() < deadline and process.poll() is None and killed is None:
        if len(list(out.glob("*/trajectory.jsonl.tmp"))) >= 2:
            for pid in rank_processes(1, str(out)):
                os.kill(pid, signal.SIGKILL)
                killed = pid
        time.sleep(0.05)
    try:
        process.wait(timeout=max(1, deadline - time.time()))
    except subprocess.TimeoutExpired:
        process.kill()
        print("the batch hung after a rank was killed")
        return 1
    if killed is None:
        print("never saw both ranks in a run; could not kill rank 1")
        return 1
    report = json.loads((out / "report.json").read_text())
    runs = report["runs"]
    if args.no_recovery:
        unfinished = [r for r in runs if r["result"] == "error" and r["status"] == "unfinished"]
        others = [r for r in runs if r["result"] == "passed"]
        junit = (out / "junit.xml").read_text()
        print(f"killed rank 1 (pid {killed}); mpirun exit {process.returncode}; "
              f"{len(others)} passed, {len(unfinished)} unfinished in the last report")
        ok = (process.returncode != 0 and len(runs) == 4 and len(unfinished) >= 1
              and len(unfinished) + len(others) == 4 and junit.count("<testcase ") == 4)
        print("unfinished runs reported" if ok else "unexpected report after the job was ended")
        return 0 if ok else 1
    lost = [r for r in runs if r["result"] == "error"]
    passed = [r for r in runs if r["result"] == "passed"]
    print(f"killed rank 1 (pid {killed}); mpirun exit {process.returncode}; "
          f"{len(passed)} passed, {len(lost)} errors")
    for r in lost:
        print(f"  {r['id']}: {r.get('error')}")
    ok = (len(runs) == 4 and len(lost) == 1 and len(passed) == 3 and lost[0]["rank"] == 1
          and lost[0]["status"] == "lost" and report["totals"]["errors"] == 1)
    print("rank loss reported" if ok else "unexpected report after killing rank 1")
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--work", required=True)
    parser.add_argument("--kill", action="store_true")
    parser.add_argument("--no-recovery", action="store_true")
    args = parser.parse_args()
    return kill_mode(args) if args.kill else compare_mode(args)


if __name__ == "__main__":
    sys.exit(main())
