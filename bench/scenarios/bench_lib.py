"""Shared pieces of the benchmark scenarios (bench/scenarios/*.py), Python 3 stdlib only.

* `summarize`: median, quartiles, p10/p90, p99, min and max of a list of samples;
* `Server`: a `trainyard serve` on a free loopback port with its own data directory, stopped
  (and its jobs with it) on exit;
* `Api`: a keep-alive HTTP/1.1 JSON client for one connection;
* job bodies (`package_job`, `command_job`) and `wait_terminal`;
* `Gcloud` (an isolated CLOUDSDK_CONFIG for `gcloud ai-platform local train`) and `Slurm`
  (sbatch/squeue against the cluster bench/peers/slurm/start.sh started);
* `write_result`: each scenario writes one JSON file that bench/scenarios/report.py reads.

Times are wall-clock seconds (`time.time()`) unless a name says otherwise: trainyard's job
timestamps, the trainer's printed start time and the client's clock are the same host clock.
"""

import argparse
import calendar
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "bench" / "scenarios"
TRAINER_DIR = SCENARIOS / "trainer"
PYTHON = "/usr/bin/python3"
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
REGION = "us-central1"


def log(*parts):
    print(f"[{time.strftime('%H:%M:%S')}]", *parts, file=sys.stderr, flush=True)


# --- statistics -------------------------------------------------------------------------------


def quantile(sorted_xs, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_xs:
        return None
    pos = (len(sorted_xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def summarize(samples):
    xs = sorted(samples)
    if not xs:
        return {"n": 0}
    return {
        "n": len(xs),
        "median": quantile(xs, 0.5),
        "q1": quantile(xs, 0.25),
        "q3": quantile(xs, 0.75),
        "p10": quantile(xs, 0.10),
        "p90": quantile(xs, 0.90),
        "p99": quantile(xs, 0.99),
        "min": xs[0],
        "max": xs[-1],
    }


# --- trainyard -------------------------------------------------------------------------------


class Server:
    """`trainyard serve` on 127.0.0.1:0 with a fresh data directory under `workdir`."""

    def __init__(self, binary, workdir, name="server", extra=(), fresh=True):
        self.binary = str(binary)
        self.fresh = fresh  # False: serve the data directory a previous Server of `name` left
        self.data = Path(workdir) / f"{name}-data"
        self.log_path = Path(workdir) / f"{name}.log"
        self.extra = list(extra)
        self.proc = None
        self.url = None

    def __enter__(self):
        if self.fresh:
            shutil.rmtree(self.data, ignore_errors=True)
        env = dict(os.environ)
        env.pop("TRAINYARD_HOME", None)
        self.log_file = open(self.log_path, "w")
        # Command jobs (command_job) run on the host unless a scenario asks for images.
        containers = [] if "--containers" in self.extra else ["--containers", "host"]
        cmd = [self.binary, "serve", "--listen", "127.0.0.1:0", "--data-dir", str(self.data),
               "--stop-jobs-on-exit", "--stop-grace", "2", *containers, *self.extra]
        self.proc = subprocess.Popen(cmd, stdout=self.log_file, stderr=self.log_file, env=env)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            match = re.search(r"serving on (http://\S+?)/ ", self.log_path.read_text())
            if match:
                self.url = match.group(1)
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"trainyard serve did not start:\n{self.log_path.read_text()}")

    def api(self):
        return Api(self.url)

    def cpu_seconds(self):
        """The server's user + system CPU time so far (its own threads, not its replicas)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def thread_cpu_seconds(self):
        """{thread id: user + system CPU seconds} of the server's live threads."""
        out = {}
        for tid in os.listdir(f"/proc/{self.proc.pid}/task"):
            try:
                stat = Path(f"/proc/{self.proc.pid}/task/{tid}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            out[tid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return out

    def children_cpu_seconds(self):
        """CPU of the server's finished children (replica supervisors and what they waited for)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_kib(self, field="VmHWM"):
        """The server's peak resident memory (VmHWM), or `field` ("VmRSS": now), in KiB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        return 0

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "log_file", None):
            self.log_file.close()

    def __exit__(self, *exc):
        self.stop()
        shutil.rmtree(self.data, ignore_errors=True)


class Api:
    """One keep-alive HTTP/1.1 connection speaking JSON; reconnects once if the server closed it."""

    def __init__(self, url):
        parsed = urllib.parse.urlparse(url)
        self.host, self.port = parsed.hostname, parsed.port
        self.conn = None

    def call(self, method, path, body=None):
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        for attempt in (0, 1):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
                self.conn.request(method, path, body=payload, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                return response.status, (json.loads(data) if data[:1] in (b"{", b"[") else data)
            except (http.client.HTTPException, ConnectionError):
                self.conn = None
                if attempt:
                    raise

    def create(self, project, job):
        status, answer = self.call("POST", f"/v1/projects/{project}/jobs", job)
        if status != 200:
            raise RuntimeError(f"create {job['jobId']}: HTTP {status}: {answer}")
        return answer

    def get(self, project, job_id):
        status, answer = self.call("GET", f"/v1/projects/{project}/jobs/{job_id}")
        if status != 200:
            raise RuntimeError(f"get {job_id}: HTTP {status}: {answer}")
        return answer

    def list_all(self, project, filter_text="", page_size=1000):
        jobs, token = [], ""
        while True:
            query = {"pageSize": page_size}
            if filter_text:
                query["filter"] = filter_text
            if token:
                query["pageToken"] = token
            status, answer = self.call(
                "GET", f"/v1/projects/{project}/jobs?{urllib.parse.urlencode(query)}")
            if status != 200:
                raise RuntimeError(f"list: HTTP {status}: {answer}")
            jobs += answer.get("jobs", [])
            token = answer.get("nextPageToken", "")
            if not token:
                return jobs

    def entries(self, body):
        status, answer = self.call("POST", "/v2/entries:list", body)
        if status != 200:
            raise RuntimeError(f"entries:list: HTTP {status}: {answer}")
        return answer

    def job_counts(self):
        """Jobs per state from /metrics (one indexed COUNT in the store: cheap to poll)."""
        status, text = self.call("GET", "/metrics")
        counts = {}
        for line in text.decode().splitlines():
            match = re.match(r'trainyard_jobs\{state="(\w+)"\} (\d+)', line)
            if match:
                counts[match.group(1)] = int(match.group(2))
        return counts


def _cluster_input(cluster):
    if not cluster:
        return {"scaleTier": "BASIC"}
    out = {"scaleTier": "CUSTOM", "masterType": "n1-standard-4"}
    if cluster.get("workers"):
        out.update(workerType="n1-standard-4", workerCount=str(cluster["workers"]))
    if cluster.get("ps"):
        out.update(parameterServerType="n1-standard-4", parameterServerCount=str(cluster["ps"]))
    return out


def package_job(job_id, package, module="trainer.task", args=(), cluster=None):
    """A runtime job: trainyard stages `package` with pip, then runs `python3 -m module`."""
    training = {"region": REGION, "packageUris": [str(package)], "pythonModule": module,
                "args": list(args), **_cluster_input(cluster)}
    return {"jobId": job_id, "labels": {"bench": "scenarios"}, "trainingInput": training}


def command_job(job_id, command, cluster=None):
    """A custom-container job whose `command` runs on the host, nothing staged: the servers of
    the scenarios measuring trainyard's own overhead run with `--containers host` (Server's
    default), so no image is involved."""
    training = {"region": REGION, **_cluster_input(cluster)}
    replica = {"imageUri": "bench/local", "containerCommand": list(command)}
    training["masterConfig"] = dict(replica)
    if cluster and cluster.get("workers"):
        training["workerConfig"] = dict(replica)
    if cluster and cluster.get("ps"):
        training["parameterServerConfig"] = dict(replica)
    return {"jobId": job_id, "labels": {"bench": "scenarios"}, "trainingInput": training}


def run_to_success(api, project, job, interval=0.002):
    """Creates `job` and waits until it is terminal, polling every `interval` seconds; returns
    (job, the client's time of the create, its time when it saw the job terminal). Raises unless
    the job SUCCEEDED."""
    t0 = time.time()
    api.create(project, job)
    final, seen = wait_terminal(api, project, job["jobId"], interval=interval)
    if final["state"] != "SUCCEEDED":
        raise RuntimeError(f"{job['jobId']}: {final['state']} {final.get('errorMessage', '')}")
    return final, t0, seen


def wait_terminal(api, project, job_id, interval=0.002, timeout=300):
    """Polls GET until the job is terminal; returns (job, the client's time when it saw it)."""
    deadline = time.monotonic() + timeout
    while True:
        job = api.get(project, job_id)
        if job.get("state") in TERMINAL:
            return job, time.time()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{job_id} not terminal after {timeout}s: {job.get('state')}")
        time.sleep(interval)


def parse_time(text):
    """RFC 3339 UTC with up to 9 fractional digits -> epoch seconds (float)."""
    match = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z", text)
    if not match:
        raise ValueError(f"not an RFC 3339 UTC time: {text}")
    y, mo, d, h, mi, s, frac = match.groups()
    whole = calendar.timegm((int(y), int(mo), int(d), int(h), int(mi), int(s), 0, 0, 0))
    return whole + (float("0." + frac) if frac else 0.0)


def started_at(text):
    """The start time the benchmark trainer printed ("... started 1763750000.123456")."""
    match = re.search(r"started (\d+\.\d+)", text)
    return float(match.group(1)) if match else None


def build_sdist(workdir):
    """The benchmark trainer as `python setup.py sdist` makes it (what gcloud stages)."""
    src = Path(workdir) / "trainer-src"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(TRAINER_DIR, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    subprocess.run([PYTHON, "setup.py", "-q", "sdist", "--formats=gztar"], cwd=src, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return next((src / "dist").glob("*.tar.gz")).resolve()


# --- peers -----------------------------------------------------------------------------------


class Gcloud:
    """`gcloud` with its own configuration directory, set to run trainers with /usr/bin/python3."""

    def __init__(self, workdir):
        self.env = dict(os.environ)
        self.env.update(CLOUDSDK_CONFIG=str(Path(workdir) / "gcloud-config"),
                        CLOUDSDK_CORE_DISABLE_PROMPTS="1")
        self.available = shutil.which("gcloud") is not None
        if self.available:
            for prop, value in (("ml_engine/local_python", PYTHON),
                                ("core/disable_usage_reporting", "true")):
                subprocess.run(["gcloud", "config", "set", prop, value], env=self.env, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def local_train(self, module, package_path, extra=()):
        """Runs `gcloud ai-platform local train`; returns (seconds, stdout)."""
        cmd = ["gcloud", "ai-platform", "local", "train", "--module-name", module,
               "--package-path", str(package_path), *extra]
        t0 = time.time()
        done = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        elapsed = time.time() - t0
        if done.returncode != 0:
            raise RuntimeError(
                f"gcloud local train failed ({done.returncode}): {done.stderr[-2000:]}")
        return elapsed, t0, done.stdout


class Slurm:
    """The cluster bench/peers/slurm/start.sh started: SLURM_CONF from the environment."""

    def __init__(self, workdir):
        self.conf = os.environ.get("SLURM_CONF", "")
        self.available = bool(self.conf) and Path(self.conf).is_file() and shutil.which("sbatch")
        self.out = Path(workdir) / "slurm-out"
        self.out.mkdir(parents=True, exist_ok=True)

    def sbatch(self, *args):
        done = subprocess.run(["sbatch", "--parsable", *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"sbatch {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout.strip().split(";")[0]

    def unfinished(self, job_id=None):
        """Jobs (or array tasks) not yet finished, by squeue."""
        cmd = ["squeue", "-h", "-r", "-t", "PD,CF,R,CG,S", "-o", "%i"]
        if job_id:
            cmd += ["-j", job_id]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            # squeue -j fails once the job has left slurmctld's memory (MinJobAge): finished.
            if job_id and "Invalid job id" in done.stderr:
                return 0
            raise RuntimeError(f"squeue: {done.stderr.strip()}")
        return len(done.stdout.split())

    def state(self, job_id):
        done = subprocess.run(["squeue", "-h", "-j", job_id, "-t", "all", "-o", "%T"],
                              capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else "GONE"


# --- machine and results ----------------------------------------------------------------------


def machine():
    cpu = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem_kib = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
    return {"cpus": os.cpu_count(), "cpu_model": cpu, "memory_gib": round(mem_kib / 2**20, 1),
            "kernel": os.uname().release, "loadavg": Path("/proc/loadavg").read_text().split()[:3]}


def machine_busy_seconds():
    """All CPUs' busy time so far (user, nice, system, irq, softirq, steal), in seconds."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    busy = sum(int(fields[i]) for i in (0, 1, 2, 5, 6, 7))
    return busy / os.sysconf("SC_CLK_TCK")


def scenario_parser(reps):
    """The options every scenario takes: --binary, --work, --out and --reps (default `reps`);
    a scenario adds its own."""
    parser = argparse.ArgumentParser()
    for flag in ("--binary", "--work", "--out"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--reps", type=int, default=reps)
    return parser


def write_result(path, data):
    data.setdefault("machine_after", machine())
    Path(path).write_text(json.dumps(data, indent=1, sort_keys=True))
    log(f"wrote {path}")
