#!/usr/bin/python3
"""The resource suite of issue #31: what unauthenticated and slow clients cost a real server.

    resources.py [--quick] [--binary build/release/trainyard] [--out FILE] [--work DIR]

Starts `trainyard serve --auth tokens` on loopback with a fresh data dir and measures:
  1. bodies: N clients POST 10 MB bodies (a third to the storage upload path, which spools to
     disk) with no token or a bad one, then the same bodies with a valid token (the peer): the
     server's resident memory (before, sampled peak, after), what reached the data dir, the body
     bytes the clients got out before the server cut them off, and the answers;
  2. flood: a client with a valid token GETs a job at a fixed rate (a keep-alive connection,
     then a new connection each request), quiet and beside floods of idle and slow clients
     without a valid token (flood.py, its own process) from the client's own address and from
     16 other loopback addresses, which come back 1 s after the server drops them (0.1 s in one
     row): p50/p99/max and the requests that failed;
  3. revoked watch: a TFJob watch whose token is revoked (`trainyard auth revoke`): the time
     until the server ends it, beside a watch whose token stays valid;
  4. 100,000 labels: the time for the Vertex and ml v1 APIs to refuse them, and `/healthz`
     latency while two such requests are in flight.
Prints the tables, states the aims and whether each is met (summary.py), writes FILE (JSON;
default results.json beside this file, a temporary file with --quick). Exits 1 when the server
does not start or dies, or an aim is grossly broken (a body byte on disk, a legitimate request
failed, a revoked watch left open, a refusal slower than 10 s).
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent / "scenarios"))  # bench_lib
import bench_lib  # noqa: E402
import clients  # noqa: E402
import summary  # noqa: E402

PROJECT = "p"
BUCKET = "resbench"
BODY_BYTES = 10_000_000
BAD_TOKEN = "ty_not_a_valid_token_at_all"
# The bodies' bytes: JSON whitespace in an order no file of the server holds, so that a search of
# the data dir for it finds any body byte that reached the disk.
PAD = b"\t \t\t \t\t\t \n\t\r \r\r"
WATCH = f"/apis/kubeflow.org/v1/namespaces/{PROJECT}/tfjobs?watch=true"
MANY_ADDRESSES = ",".join(f"127.0.0.{i}" for i in range(2, 18))  # 16 addresses: 16 × 64 > 512

FULL = {"body_clients": 48, "idle": 1000, "slow": 200, "seconds": 5.0, "rate": 200,
        "watches": 5, "label_reps": 3}
QUICK = {"body_clients": 12, "idle": 300, "slow": 60, "seconds": 1.5, "rate": 200,
         "watches": 2, "label_reps": 1}


def status_kib(pid, field):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def tree_bytes(path):
    """Bytes of the regular files under `path` (their sizes) and how many there are."""
    total = files = 0
    for root, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
                files += 1
            except OSError:
                pass
    return total, files


def files_holding(path, marker):
    """The files under `path` whose bytes contain `marker`."""
    found = []
    for root, _, names in os.walk(path):
        for name in names:
            full = os.path.join(root, name)
            try:
                with open(full, "rb") as f:
                    if marker in f.read():
                        found.append(os.path.relpath(full, path))
            except OSError:
                pass
    return found


class Sampler:
    """Samples the server's VmRSS and the bytes in its upload spool every 5 ms while running."""

    def __init__(self, pid, spool):
        self.pid, self.spool = pid, spool
        self.rss_peak = self.spool_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.rss_peak = max(self.rss_peak, status_kib(self.pid, "VmRSS"))
            self.spool_peak = max(self.spool_peak, tree_bytes(self.spool)[0])
            self._stop.wait(0.005)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


class Suite:
    def __init__(self, binary, server, cfg):
        self.binary = binary
        self.server = server
        self.cfg = cfg
        self.port = int(server.url.rsplit(":", 1)[1])
        self.pid = server.proc.pid
        self.data = str(server.data)
        self.token = self.make_token("bench", "editor")

    def make_token(self, name, role):
        made = subprocess.run([self.binary, "auth", "create-token", name, "--role", role,
                               "--project", PROJECT, "--data-dir", self.data],
                              capture_output=True, text=True, timeout=60, check=False)
        if made.returncode != 0:
            raise RuntimeError(f"create-token {name}: {made.stderr}")
        return made.stdout.strip()

    def alive(self, part):
        if self.server.proc.poll() is not None:
            raise RuntimeError(f"trainyard serve died during {part} "
                               f"(exit {self.server.proc.returncode}):\n"
                               + Path(self.server.log_path).read_text()[-3000:])

    def call(self, method, path, body=b"", token=None, extra=()):
        return clients.call(self.port, method, path, token or self.token, body, extra)

    # --- 1. bodies ----------------------------------------------------------------------------

    def burst(self, name, token_of):
        """N concurrent 10 MB POSTs; `token_of(i)` is client i's token (None: none sent). A third
        upload an object of PAD bytes; the others POST a valid job padded with PAD (JSON
        whitespace) to 10 MB, which a valid token gets created."""
        n = self.cfg["body_clients"]
        fill = PAD * (BODY_BYTES // len(PAD) + 1)
        senders = []
        for i in range(n):
            if i < n // 3:
                path = f"/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name={name}-{i}"
                senders.append(clients.Sender(self.port, path, token_of(i), fill[:BODY_BYTES],
                                              "application/octet-stream"))
            else:
                job = json.dumps(bench_lib.command_job(f"{name}_{i}", ["/bin/true"])).encode()
                body = b"{" + fill[:BODY_BYTES - len(job)] + job[1:]
                senders.append(clients.Sender(self.port, f"/v1/projects/{PROJECT}/jobs",
                                              token_of(i), body, "application/json"))
        rss_before = status_kib(self.pid, "VmRSS")
        disk_before = tree_bytes(self.data)[0]
        done = threading.Event()
        probed = {}

        def probe():  # another client's /healthz meanwhile (no token needed)
            probed["ms"], probed["errors"] = clients.legit_loop(
                self.port, "/healthz", None, 600, 100, False, stop=done.is_set)

        prober = threading.Thread(target=probe)
        with Sampler(self.pid, os.path.join(self.data, "buckets", ".uploads")) as sampled:
            prober.start()
            seconds = clients.send_all(senders)
            done.set()
            prober.join()
        time.sleep(1.0)
        self.alive("the bodies")
        sent = sorted(s.body_sent for s in senders)
        return {
            "clients": n, "uploads": n // 3, "body_bytes_each": BODY_BYTES, "seconds": seconds,
            "rss_before_kib": rss_before, "rss_peak_kib": sampled.rss_peak,
            "rss_after_kib": status_kib(self.pid, "VmRSS"),
            "rss_growth_kib": sampled.rss_peak - rss_before,
            "vmhwm_kib": status_kib(self.pid, "VmHWM"),
            "spool_peak_bytes": sampled.spool_peak,
            "data_dir_growth_bytes": tree_bytes(self.data)[0] - disk_before,
            "answers": dict(Counter(str(s.status()) for s in senders)),
            "ends": dict(Counter(s.error or "answered" for s in senders)),
            "body_bytes_sent_total": sum(sent), "body_bytes_sent_max": sent[-1],
            "body_bytes_sent_median": sent[len(sent) // 2],
            "healthz_meanwhile_ms": {**bench_lib.summarize(probed["ms"]),
                                     "errors": len(probed["errors"])},
        }

    def echo(self):
        """A valid token's job whose one label value is 10 MB: how large the refusal is."""
        job = bench_lib.command_job("echoed", ["/bin/true"])
        job["labels"] = {"k": "v" * BODY_BYTES}
        sender = clients.Sender(self.port, f"/v1/projects/{PROJECT}/jobs", self.token,
                                json.dumps(job).encode(), "application/json")
        seconds = clients.send_all([sender])
        return {"request_bytes": len(sender.out), "answer": sender.status(),
                "answer_bytes": sender.received_bytes, "seconds": seconds}

    def bodies(self):
        status, body = self.call("POST", f"/storage/v1/b?project={PROJECT}",
                                 json.dumps({"name": BUCKET}).encode(),
                                 extra=["Content-Type: application/json"])
        if status != 200:
            raise RuntimeError(f"bucket create: HTTP {status}: {body[:300]!r}")
        bench_lib.log("bodies: without a valid token")
        refused = self.burst("refused", lambda i: None if i % 2 == 0 else BAD_TOKEN)
        refused["files_holding_body_bytes"] = files_holding(self.data, PAD * 4)
        bench_lib.log("bodies: the peer, with a valid token")
        peer = self.burst("peer", lambda i: self.token)
        peer["files_holding_body_bytes"] = len(files_holding(self.data, PAD * 4))
        bench_lib.log("bodies: a 10 MB label value, with a valid token")
        return {"refused": refused, "peer": peer, "echo": self.echo()}

    # --- 2. flood -----------------------------------------------------------------------------

    def legit(self, path, seconds):
        out = {}
        for mode, fresh in (("keepalive", False), ("fresh", True)):
            latencies, errors = clients.legit_loop(self.port, path, self.token, seconds,
                                                   self.cfg["rate"], fresh)
            out[mode] = {**bench_lib.summarize(latencies), "errors": len(errors),
                         "error_kinds": dict(Counter(errors).most_common(5))}
        return out

    def flood_phase(self, path, name, **flood):
        bench_lib.log(f"flood: {name}")
        if not flood:
            return {"name": name, **self.legit(path, self.cfg["seconds"])}
        args = [sys.executable, str(HERE / "flood.py"), "--port", str(self.port),
                "--server-pid", str(self.pid)]
        for key, value in flood.items():
            args += ["--" + key.replace("_", "-"), str(value)]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        try:
            if proc.stdout.readline().strip() != "ready":
                raise RuntimeError(f"the flood ({name}) did not start")
            time.sleep(0.5)
            figures = self.legit(path, self.cfg["seconds"])
        finally:
            proc.terminate()
            counts = proc.communicate(timeout=60)[0].strip().splitlines()
        self.alive(f"the flood ({name})")
        return {"name": name, "flood_args": flood, **figures,
                "flood": json.loads(counts[-1]) if counts else {}}

    def flood(self):
        job_id = "resbench_get"
        job = bench_lib.command_job(job_id, ["/bin/true"])
        status, body = self.call("POST", f"/v1/projects/{PROJECT}/jobs", json.dumps(job).encode(),
                                 extra=["Content-Type: application/json"])
        if status != 200:
            raise RuntimeError(f"job create: HTTP {status}: {body[:300]!r}")
        path = f"/v1/projects/{PROJECT}/jobs/{job_id}"
        idle, slow = self.cfg["idle"], self.cfg["slow"]
        phases = [self.flood_phase(path, "quiet")]
        for where, addresses in (("one address (the client's own)", "127.0.0.1"),
                                 ("16 other addresses", MANY_ADDRESSES)):
            phases.append(self.flood_phase(path, f"{idle} idle, {where}", addresses=addresses,
                                           idle=idle))
            phases.append(self.flood_phase(path, f"{slow} slow (half heads, half bodies), {where}",
                                           addresses=addresses, slow_head=slow // 2,
                                           slow_body=slow - slow // 2))
        # Idle clients that come back 0.1 s after each close (1,000 slots: thousands of
        # connections a second from the client's own address).
        phases.append(self.flood_phase(path, f"{idle} idle, one address (the client's own), "
                                       "redialling after 0.1 s", addresses="127.0.0.1",
                                       idle=idle, redial=0.1))
        phases.append(self.flood_phase(path, "quiet again"))
        return {"path": path, "rate_per_s": self.cfg["rate"], "seconds": self.cfg["seconds"],
                "phases": phases}

    # --- 3. revoked watch -------------------------------------------------------------------

    def watches(self):
        control_token = self.make_token("watch-control", "viewer")
        control, _ = clients.open_stream(self.port, WATCH, control_token)
        runs = []
        for i in range(self.cfg["watches"]):
            name = f"watch-{i}"
            token = self.make_token(name, "viewer")
            sock, _ = clients.open_stream(self.port, WATCH, token)
            time.sleep(0.4 * i % 2.0 + 0.3)  # revokes land at different points of the re-check
            t0 = time.monotonic()
            revoked = subprocess.run([self.binary, "auth", "revoke", name, "--data-dir", self.data],
                                     capture_output=True, text=True, timeout=60, check=False)
            t1 = time.monotonic()
            if revoked.returncode != 0:
                raise RuntimeError(f"revoke {name}: {revoked.stderr}")
            end, clean = clients.wait_closed(sock, 30)
            sock.close()
            runs.append({"revoke_s": t1 - t0, "closed_after_revoked_s": None if end is None
                         else end - t1, "clean_end": clean})
            bench_lib.log(f"watch {i}: closed {runs[-1]['closed_after_revoked_s']} s after the "
                          "revoke")
        control_end, _ = clients.wait_closed(control, 0.2)
        control.close()
        closed = [r["closed_after_revoked_s"] for r in runs
                  if r["closed_after_revoked_s"] is not None]
        self.alive("the watches")
        return {"runs": runs, "closed": len(closed), "max_s": max(closed) if closed else None,
                "median_s": statistics.median(closed) if closed else None,
                "control_still_open": control_end is None}

    # --- 4. 100,000 labels ------------------------------------------------------------------

    def labels(self):
        labels = {f"l{i}": "v" for i in range(100_000)}
        vertex = json.dumps({"displayName": "many-labels", "labels": labels, "jobSpec": {
            "workerPoolSpecs": [{"containerSpec": {"imageUri": "localhost/img:1"},
                                 "machineSpec": {"machineType": "n1-standard-4"},
                                 "replicaCount": "1"}]}}).encode()
        ml = json.dumps({**bench_lib.command_job("many_labels", ["/bin/true"]),
                         "labels": labels}).encode()
        apis = {"vertex": (f"/v1/projects/{PROJECT}/locations/us-central1/customJobs", vertex),
                "ml_v1": (f"/v1/projects/{PROJECT}/jobs", ml)}
        out = {"body_bytes": {k: len(v[1]) for k, v in apis.items()}}
        for api, (path, body) in apis.items():
            times, answers = [], []
            for _ in range(self.cfg["label_reps"]):
                t0 = time.monotonic()
                status, answer = self.call("POST", path, body,
                                           extra=["Content-Type: application/json"])
                times.append(time.monotonic() - t0)
                answers.append(status)
            out[api] = {"seconds": times, "max_s": max(times), "answers": answers,
                        "names_labels": b'"field":"labels"' in answer}
        quiet, _ = clients.legit_loop(self.port, "/healthz", None, 1.0, 200, False)
        in_flight = []

        def post(path, body):
            for _ in range(max(2, self.cfg["label_reps"])):
                t0 = time.monotonic()
                self.call("POST", path, body, extra=["Content-Type: application/json"])
                in_flight.append(time.monotonic() - t0)

        senders = [threading.Thread(target=post, args=apis["vertex"]),
                   threading.Thread(target=post, args=apis["ml_v1"])]
        for t in senders:
            t.start()
        during, errors = clients.legit_loop(
            self.port, "/healthz", None, 60, 200, False,
            stop=lambda: not all(t.is_alive() for t in senders))
        for t in senders:
            t.join()
        self.alive("the labels")
        out["healthz_quiet"] = bench_lib.summarize(quiet)
        out["healthz_during"] = {**bench_lib.summarize(during), "errors": len(errors)}
        out["in_flight_seconds"] = in_flight
        return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--binary", default=str(HERE.parents[1] / "build/release/trainyard"))
    parser.add_argument("--out", default=None)
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    cfg = QUICK if args.quick else FULL
    if args.out is None:
        args.out = (tempfile.mkstemp(prefix="trainyard-resbench-", suffix=".json")[1]
                    if args.quick else str(HERE / "results.json"))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    work = args.work or tempfile.mkdtemp(prefix="trainyard-resbench-")
    results = {"mode": "quick" if args.quick else "full", "config": cfg,
               "nofile_limit": resource.getrlimit(resource.RLIMIT_NOFILE),
               "machine_before": bench_lib.machine(),
               "commit": subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True).stdout.strip()}
    busy0, t0 = bench_lib.machine_busy_seconds(), time.monotonic()
    try:
        with bench_lib.Server(args.binary, work, extra=["--auth", "tokens"]) as server:
            suite = Suite(args.binary, server, cfg)
            cpu0 = server.cpu_seconds()
            results["bodies"] = suite.bodies()
            results["flood"] = suite.flood()
            results["watch"] = suite.watches()
            results["labels"] = suite.labels()
            results["server_cpu_s"] = server.cpu_seconds() - cpu0
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    results["wall_s"] = time.monotonic() - t0
    results["machine_busy_share"] = ((bench_lib.machine_busy_seconds() - busy0)
                                     / (results["wall_s"] * os.cpu_count()))
    results["machine_after"] = bench_lib.machine()
    rows = summary.judge(results)
    results["aims"] = [{"aim": a, "this_run": v, "met": m, "grossly_broken": g}
                       for a, v, m, g in rows]
    Path(args.out).write_text(json.dumps(results, indent=1))
    summary.show(results, rows)
    print(f"\nwall {results['wall_s']:.0f} s, load {results['machine_before']['loadavg']} → "
          f"{results['machine_after']['loadavg']}, fd limit {results['nofile_limit']}; "
          f"figures in {args.out}")
    return 1 if any(g for *_, g in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
