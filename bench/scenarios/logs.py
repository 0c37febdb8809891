"""Scenario 5: one replica printing N lines of 80 bytes, until every line is queryable.

    logs.py --binary TRAINYARD --work DIR --out RESULT.json [--lines N] [--reps R]

The program is trainer/lines.py (blocks of 1,000 lines, one write each; line 0 carries the
time the program started, the last line ends in "last"). Per repetition:
  * file (the floor): the program writes to a file; lines/s = N / (its exit - its start);
  * trainyard: a fresh server runs the program as a custom-container job (nothing staged); its
    supervisor turns each line of stdout into a log record. The client polls `entries:list`
    (orderBy "timestamp desc", pageSize 1, the replica's task) every 10 ms until the newest
    entry is the last line. Records are appended in order and files only grow, so at that
    moment every line is queryable. lines/s = N / (that moment - the program's start), the
    same clock start as the floor's; the end-to-end rate from the POST is given too.
Afterwards (untimed for the figure above; in the first --read-back-reps repetitions) the client
reads every entry back through `entries:list` in pages of 1,000 (what `stream-logs` fetches),
counts them (they must be N) and reports that read rate as well.
"""

import http.client
import json
import pathlib
import re
import subprocess
import time
import urllib.parse

import bench_lib as lib

PROJECT = "logs"
LINES_PATH = lib.TRAINER_DIR / "trainer" / "lines.py"


def floor(work, lines):
    path = pathlib.Path(work) / "lines-floor.txt"
    env = {"PYTHONPATH": str(lib.TRAINER_DIR), "PATH": "/usr/bin:/bin"}
    t0 = time.time()
    subprocess.run([lib.PYTHON, str(LINES_PATH), "--lines", str(lines), "--out", str(path)],
                   env=env, check=True)
    done = time.time()
    with open(path, "rb") as f:
        started = lib.started_at(f.readline().decode())
    size = path.stat().st_size
    path.unlink()
    if size != lines * 80:
        raise RuntimeError(f"floor: {size} bytes written, want {lines * 80}")
    return {"rate": lines / (done - started), "e2e_rate": lines / (done - t0),
            "seconds": done - started}


def newest(api, job_id, order="timestamp desc"):
    body = {"resourceNames": [f"projects/{PROJECT}"], "orderBy": order, "pageSize": 1,
            "filter": f'resource.labels.job_id="{job_id}" AND '
                      'resource.labels.task_name="master-replica-0"'}
    entries = api.entries(body).get("entries", [])
    return entries[0].get("textPayload", "") if entries else ""


def read_back(url, job_id):
    """Every entry of the job's master, in pages of 1,000; returns (count, seconds)."""
    parsed = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)
    token, count = "", 0
    t0 = time.time()
    while True:
        body = {"resourceNames": [f"projects/{PROJECT}"], "orderBy": "timestamp asc",
                "pageSize": 1000, "filter": f'resource.labels.job_id="{job_id}" AND '
                                            'resource.labels.task_name="master-replica-0"'}
        if token:
            body["pageToken"] = token
        conn.request("POST", "/v2/entries:list", json.dumps(body),
                     {"Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"entries:list: HTTP {response.status}: {data[:300]}")
        # Counted without decoding the JSON, so that the client's parsing is not the figure.
        count += data.count(b'"textPayload"')
        match = re.search(rb'"nextPageToken"\s*:\s*"([^"]*)"', data)
        token = match.group(1).decode() if match else ""
        if not token:
            return count, time.time() - t0


def trainyard(binary, work, lines, rep, read):
    with lib.Server(binary, work, f"logs-{rep}") as server:
        api = server.api()
        job_id = f"lines_{rep}"
        job = lib.command_job(job_id, [lib.PYTHON, str(LINES_PATH), "--lines", str(lines)])
        t0 = time.time()
        api.create(PROJECT, job)
        while " last " not in newest(api, job_id):
            time.sleep(0.01)
        ready = time.time()
        started = lib.started_at(newest(api, job_id, "timestamp asc"))
        final, _ = lib.wait_terminal(api, PROJECT, job_id, interval=0.05)
        if final["state"] != "SUCCEEDED":
            raise RuntimeError(f"{job_id}: {final['state']} {final.get('errorMessage', '')}")
        # Every repetition checks the record file (one record per line, docs/ARCHITECTURE.md).
        records = server.data / "jobs" / PROJECT / job_id / "logs" / "master-replica-0.log"
        with open(records, "rb") as f:
            recorded = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
        if recorded != lines:
            raise RuntimeError(f"{job_id}: {recorded} records in {records}, want {lines}")
        sample = {"rate": lines / (ready - started), "e2e_rate": lines / (ready - t0),
                  "seconds": ready - started}
        if read:
            count, read_s = read_back(server.url, job_id)
            if count != lines:
                raise RuntimeError(f"{job_id}: entries:list returned {count} lines, want {lines}")
            sample.update(read_rate=count / read_s, read_s=read_s)
        sample["server_peak_rss_kib"] = server.peak_rss_kib()
        return sample


def main():
    parser = lib.scenario_parser(reps=3)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--read-back-reps", type=int, default=1,
                        help="repetitions that also read every line back (the first ones)")
    args = parser.parse_args()

    samples = {"file": [], "trainyard": []}
    result = {"scenario": "logs", "machine_before": lib.machine(), "lines": args.lines,
              "reps": args.reps, "line_bytes": 80}
    for rep in range(args.reps):
        samples["file"].append(floor(args.work, args.lines))
        read = rep < args.read_back_reps
        samples["trainyard"].append(trainyard(args.binary, args.work, args.lines, rep, read))
        last = samples["trainyard"][-1]
        lib.log(f"logs rep {rep + 1}/{args.reps} ({args.lines} lines): file "
                f"{samples['file'][-1]['rate']:,.0f} lines/s, trainyard {last['rate']:,.0f} "
                "lines/s" + (f" (read back at {last['read_rate']:,.0f} lines/s)" if read else ""))
    result["samples"] = samples
    result["summary"] = {
        path: {key: lib.summarize([s[key] for s in rows if key in s]) for key in rows[0]}
        for path, rows in samples.items()}
    lib.write_result(args.out, result)


if __name__ == "__main__":
    main()
