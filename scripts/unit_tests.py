#!/usr/bin/python3
"""Runs the CTest tests labelled `unit` of a build directory with one process per test executable.

CTest runs each GoogleTest case in a process of its own (gtest_discover_tests): for the ~3,200 unit
cases that is ~3,200 program starts, about 120 s of CPU on the 2-core machine CI uses, while the
cases themselves take under 10 s. This runs exactly the cases CTest would (its own list, `ctest
--show-only=json-v1 -L unit`), each executable once with a --gtest_filter naming its cases, several
executables at once; a unit test that is not a GoogleTest case runs as CTest would run it. A case
that needs a process of its own still gets one from `ctest -L unit`.

  scripts/unit_tests.py BUILD_DIR [--jobs N]

Prints each executable's case count and time, and the output of any that failed; exits 1 then.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import time

TIMEOUT_S = 900  # for one executable's cases together


def unit_tests(build_dir):
    listing = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1", "-L",
                              "unit"], check=True, capture_output=True, text=True).stdout
    return json.loads(listing)["tests"]


def properties(test):
    return {p["name"]: p["value"] for p in test.get("properties", [])}


def plan(tests):
    """[(name, command, working directory, environment, case count)]: one entry per GoogleTest
    executable with every unit case of it in one filter, and one per other test."""
    groups = collections.OrderedDict()
    runs = []
    for test in tests:
        command = test["command"]
        props = properties(test)
        cwd = props.get("WORKING_DIRECTORY")
        env = dict(os.environ)
        for assignment in props.get("ENVIRONMENT", []):
            key, _, value = assignment.partition("=")
            env[key] = value
        filters = [a for a in command if a.startswith("--gtest_filter=")]
        if len(filters) == 1 and not props.get("ENVIRONMENT"):
            key = (command[0], cwd)
            groups.setdefault(key, []).append(filters[0][len("--gtest_filter="):])
        else:
            runs.append((test["name"], command, cwd, env, 1))
    for (executable, cwd), cases in groups.items():
        command = [executable, "--gtest_filter=" + ":".join(cases), "--gtest_brief=1"]
        runs.append((os.path.basename(executable), command, cwd, dict(os.environ), len(cases)))
    return runs


def run(entry):
    name, command, cwd, env, cases = entry
    started = time.monotonic()
    try:
        proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_S)
        rc, output = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as expired:
        rc, output = -1, "timed out after %d s\n%s" % (TIMEOUT_S, expired.stdout or "")
    return name, cases, rc, output, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    runs = plan(unit_tests(args.build_dir))
    # The longest first (the executables with the most cases), so that none is left running alone.
    runs.sort(key=lambda entry: -entry[4])
    started = time.monotonic()
    failed, total = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for name, cases, rc, output, seconds in pool.map(run, runs):
            total += cases
            print("%-28s %4d cases %6.1f s  %s" % (name, cases, seconds,
                                                    "ok" if rc == 0 else "FAILED (%d)" % rc),
                  flush=True)
            if rc != 0:
                failed.append(name)
                print(output, flush=True)
    print("unit: %d cases in %d processes, %.1f s; %s" % (
        total, len(runs), time.monotonic() - started,
        "failed: " + " ".join(failed) if failed else "all passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
