#!/usr/bin/python3
"""How the server grows: RSS and API latency with 10k, 100k and 1M stored jobs and 10M log lines.

    bench/api/scale.py [--binary TRAINYARD] [--jobs 10000,100000,1000000] [--log-lines 10000000]
                       [--duration SECONDS] [--out bench/api/scale.md]

Per store size N: a fresh `trainyard serve` stores one job through the API and runs it to
SUCCEEDED (a command job, `/bin/true`); the server stops and N copies of that row, as the server
wrote it, go into its SQLite file (only jobId, createTime one second apart, etag and revision
differ: the text the server reads is its own encoder's), which takes seconds where creating 1M
jobs through the API would take minutes. The server then starts on that data directory and wrk
(bench/api/api.lua) measures get of a random stored job at 16 and 64 connections, the first
list page of 100 at 1 and 16, and a filtered list that matches nothing (one request examines
2,000 jobs, then answers with a token). RSS is read from /proc: after the start (the store
opened, unfinished jobs recovered) and the peak (VmHWM) at the end.

Logs: a fresh server runs one command job printing N lines of 80 bytes (bench/scenarios/trainer
lines.py), then `entries:list` is timed from one connection (sequential requests): the first
page of 1,000 oldest first, newest first, and a page in the middle of the job found by a
timestamp filter. Never asserts a time; exits non-zero only when it cannot measure.
"""

import argparse
import datetime
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scenarios"))
import bench_lib as lib  # noqa: E402

HERE = Path(__file__).resolve().parent
LUA = HERE / "api.lua"
PROJECT = "p"  # api.lua's project
THREADS = 2  # api.lua's get mode picks ids pre_<0..THREADS-1>_<2..quota+1>


def load():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def machine_busy():
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    t = os.times()
    return t.children_user + t.children_system


def mark(server):
    """The counters `finish` measures from: the machine's busy time, the server's and the
    children's CPU, the wall clock."""
    return machine_busy(), server.cpu_seconds(), children_cpu(), time.time()


def finish(row, server, since):
    """Adds to `row` the share of the CPU that other processes took since `since` (`mark`), the
    server's RSS now and at its peak, and the load average."""
    busy0, server0, children0, w0 = since
    other = (machine_busy() - busy0) - (server.cpu_seconds() - server0) - \
        (children_cpu() - children0)
    row["other_share"] = max(other, 0) / ((time.time() - w0) * os.cpu_count())
    row["rss_end_mib"] = server.peak_rss_kib("VmRSS") / 1024
    row["rss_peak_mib"] = server.peak_rss_kib() / 1024
    row["load_after"] = load()


def wrk(url, connections, duration, *args):
    """One wrk run of api.lua; returns {requests/s, p50_ms, p99_ms, non2xx}."""
    threads = 1 if connections < 2 else 2
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", "-s", str(LUA),
         url, "--", *args], capture_output=True, text=True, check=False).stdout
    match = re.search(r"^BENCH (.*)$", out, re.M)
    if not match:
        raise RuntimeError(f"wrk {args}: no BENCH line:\n{out}")
    kv = dict(item.split("=") for item in match.group(1).split())
    non2xx = re.search(r"Non-2xx or 3xx responses: *(\d+)", out)
    return {"rate": int(kv["requests"]) / (int(kv["duration_us"]) / 1e6),
            "p50": int(kv["p50_us"]) / 1000, "p99": int(kv["p99_us"]) / 1000,
            "non2xx": int(non2xx.group(1)) if non2xx else 0}


def rfc3339(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def preload(db_path, quota):
    """THREADS x quota copies of the one stored job, ids pre_<t>_<2..quota+1>."""
    db = sqlite3.connect(db_path)
    row = db.execute("SELECT project, job_id, create_time_ns, state, etag, body, extras "
                     "FROM jobs").fetchall()
    if len(row) != 1:
        raise RuntimeError(f"expected the one template job in {db_path}, found {len(row)}")
    project, template_id, created_ns, state, etag, body, extras = row[0]
    created_s = created_ns // 1_000_000_000
    created_text = re.search(r'"createTime":"([^"]*)"', body).group(1)
    id_text = f'"jobId":"{template_id}"'
    if id_text not in body:
        raise RuntimeError(f"template body lacks {id_text}: {body}")
    db.execute("DELETE FROM jobs")
    total = THREADS * quota

    def rows():
        i = 0
        for n in range(2, quota + 2):
            for t in range(THREADS):
                job_id = f"pre_{t}_{n}"
                # Older than the template, one second apart: the list order is by createTime.
                at = created_s - total + i
                text = body.replace(id_text, f'"jobId":"{job_id}"', 1).replace(
                    f'"createTime":"{created_text}"', f'"createTime":"{rfc3339(at)}"', 1)
                i += 1
                yield (project, job_id, at * 1_000_000_000, state, etag, text, extras, i)

    db.executemany("INSERT INTO jobs (project, job_id, create_time_ns, state, etag, body, extras, "
                   "revision) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows())
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return total


def measure_jobs(binary, work, n, duration):
    quota = (n + THREADS - 1) // THREADS
    name = f"scale-{n}"
    template = lib.Server(binary, work, name)
    template.__enter__()
    api = template.api()
    job = lib.command_job("template", ["/bin/true"])
    job["labels"] = {"bench": "scale", "team": "vision"}
    api.create(PROJECT, job)
    final, _ = lib.wait_terminal(api, PROJECT, "template", interval=0.05)
    if final["state"] != "SUCCEEDED":
        raise RuntimeError(f"template job: {final}")
    template.stop()
    db_path = template.data / "trainyard.db"
    t0 = time.time()
    stored = preload(db_path, quota)
    preload_s = time.time() - t0
    lib.log(f"{name}: {stored} jobs preloaded in {preload_s:.1f} s")

    row = {"jobs": stored, "preload_s": preload_s,
           "db_mib": db_path.stat().st_size / 2**20, "load_before": load()}
    t0 = time.time()
    with lib.Server(binary, work, name, fresh=False) as server:
        row["start_s"] = time.time() - t0
        row["rss_start_mib"] = server.peak_rss_kib("VmRSS") / 1024
        since = mark(server)
        row["get16"] = wrk(server.url, 16, duration, "get", "pre", str(THREADS), str(quota + 1))
        row["get64"] = wrk(server.url, 64, duration, "get", "pre", str(THREADS), str(quota + 1))
        row["list1"] = wrk(server.url, 1, duration, "list")
        row["list16"] = wrk(server.url, 16, duration, "list")
        row["listf1"] = wrk(server.url, 1, duration, "list", "&filter=labels.team%3Dnone")
        finish(row, server, since)
    lib.log(f"{name}: {row}")
    return row


def timed(api, body, reps):
    """p50 and p99 (ms) of `reps` sequential entries:list calls with `body`; the last answer."""
    times, answer = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        answer = api.entries(body)
        times.append((time.perf_counter() - t0) * 1000)
    s = lib.summarize(times)
    return s["median"], s["p99"], answer


def measure_logs(binary, work, lines, reps):
    lines_py = lib.TRAINER_DIR / "trainer" / "lines.py"
    with lib.Server(binary, work, "scale-logs") as server:
        api = server.api()
        job_id = "lines"
        api.create(PROJECT, lib.command_job(job_id, [lib.PYTHON, str(lines_py), "--lines",
                                                     str(lines)]))
        final, _ = lib.wait_terminal(api, PROJECT, job_id, interval=0.2)
        if final["state"] != "SUCCEEDED":
            raise RuntimeError(f"{job_id}: {final['state']} {final.get('errorMessage', '')}")
        row = {"lines": lines, "rss_after_run_mib": server.peak_rss_kib("VmRSS") / 1024,
               "load_before": load()}
        base = {"resourceNames": [f"projects/{PROJECT}"], "pageSize": 1000,
                "filter": f'resource.labels.job_id="{job_id}" AND '
                          'resource.labels.task_name="master-replica-0"'}
        since = mark(server)
        row["first"] = timed(api, {**base, "orderBy": "timestamp asc"}, reps)
        row["newest"] = timed(api, {**base, "orderBy": "timestamp desc"}, reps)
        first_ts = row["first"][2]["entries"][0]["timestamp"]
        last_ts = row["newest"][2]["entries"][0]["timestamp"]
        t_first = datetime.datetime.fromisoformat(first_ts.replace("Z", "+00:00"))
        t_last = datetime.datetime.fromisoformat(last_ts.replace("Z", "+00:00"))
        middle = (t_first + (t_last - t_first) / 2).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        deep = {**base, "orderBy": "timestamp asc",
                "filter": f'{base["filter"]} AND timestamp>="{middle}"'}
        row["middle"] = timed(api, deep, reps)
        row["middle_first_line"] = row["middle"][2]["entries"][0]["textPayload"][:10]
        lib.log(f"logs: first {first_ts}, last {last_ts}, middle {middle}")
        finish(row, server, since)
        for key in ("first", "newest", "middle"):
            row[key] = row[key][:2]
    lib.log(f"logs: {row}")
    return row


def report(job_rows, log_row, args, commit):
    out = [f"# trainyard scale benchmark ({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}Z)",
           "",
           f"Commit `{commit}`, binary `{args.binary}`, {os.cpu_count()} CPUs, wrk {args.duration} s "
           "per cell (1 thread at 1 connection, 2 otherwise). Latency in ms, p50 / p99.",
           "",
           "| stored jobs | SQLite file | server start | RSS after start | RSS after, peak | "
           "get 16 conn | get 64 conn | list 100, 1 conn | list 100, 16 conn | "
           "filtered list (2,000 examined), 1 conn | load avg before → after; other CPU |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in job_rows:
        def cell(m):
            bad = f", {m['non2xx']} non-2xx" if m["non2xx"] else ""
            return f"{m['p50']:.2f} / {m['p99']:.2f} ({m['rate']:,.0f}/s{bad})"
        out.append(
            f"| {r['jobs']:,} | {r['db_mib']:,.0f} MiB | {r['start_s']:.1f} s | "
            f"{r['rss_start_mib']:.0f} MiB | {r['rss_end_mib']:.0f}, {r['rss_peak_mib']:.0f} MiB | "
            f"{cell(r['get16'])} | {cell(r['get64'])} | {cell(r['list1'])} | {cell(r['list16'])} | "
            f"{cell(r['listf1'])} | {r['load_before']} → {r['load_after']}; "
            f"{100 * r['other_share']:.0f}% |")
    if log_row:
        r = log_row
        out += ["",
                f"Logs: one job of {r['lines']:,} lines of 80 bytes; `entries:list` pageSize 1,000, "
                f"{args.log_reps} sequential requests each, p50 / p99 ms.",
                "",
                "| query | p50 ms | p99 ms |",
                "|---|---:|---:|",
                f"| first page, oldest first | {r['first'][0]:.1f} | {r['first'][1]:.1f} |",
                f"| first page, newest first | {r['newest'][0]:.1f} | {r['newest'][1]:.1f} |",
                f"| a page in the middle (`timestamp>=` the midpoint; first line "
                f"{r['middle_first_line']}) | {r['middle'][0]:.1f} | {r['middle'][1]:.1f} |",
                "",
                f"Server RSS after the job: {r['rss_after_run_mib']:.0f} MiB; after the queries "
                f"{r['rss_end_mib']:.0f} MiB, peak {r['rss_peak_mib']:.0f} MiB. Load average "
                f"{r['load_before']} → {r['load_after']}; other processes "
                f"{100 * r['other_share']:.0f}% of the CPU while querying."]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(lib.REPO / "build" / "release" / "trainyard"))
    parser.add_argument("--jobs", default="10000,100000,1000000")
    parser.add_argument("--log-lines", type=int, default=10_000_000)
    parser.add_argument("--log-reps", type=int, default=30)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--out", default=str(HERE / "scale.md"))
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("scale.py: needs wrk (apt-get install wrk)")
    commit = subprocess.run(["git", "-C", str(lib.REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()
    work = tempfile.mkdtemp(prefix="trainyard-scale.")
    try:
        job_rows = [measure_jobs(args.binary, work, int(n), args.duration)
                    for n in args.jobs.split(",") if n]
        log_row = measure_logs(args.binary, work, args.log_lines, args.log_reps) \
            if args.log_lines > 0 else None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = report(job_rows, log_row, args, commit)
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
