"""Scenario 1: a trivial job end to end, and trainyard's own submit -> exec latency.

    trivial.py --binary TRAINYARD --work DIR --out RESULT.json [--reps N] [--internal N]

End to end (each repetition runs every path once, in turn, so that drift in the machine's load
touches them alike): the time from submit until the client sees the job succeed, for
  * trainyard-package-first: a runtime job whose package (the benchmark trainer's sdist, as
    gcloud and `trainyard jobs submit --package-path` stage it) trainyard has not seen: each
    repetition submits a copy whose gzip header differs (other bytes, the same files), so
    trainyard's package cache misses and installs it with pip, then runs
    `python3 -m trainer.task`; the client POSTs the job and polls GET every 2 ms on one
    keep-alive connection (the server is already up);
  * trainyard-wheel-first: the same for the trainer as a pure wheel (`pip wheel` of the same
    source; each repetition a copy with another zip comment), which trainyard unpacks instead of
    running pip;
  * trainyard-package: the same sdist resubmitted (a warm-up job installed it before the first
    repetition), so the package cache hits and nothing is installed;
  * trainyard-command: the same module file run as a custom-container command (nothing staged),
    which separates trainyard from pip;
  * gcloud: `gcloud ai-platform local train --module-name trainer.task --package-path ...`
    (gcloud runs the module in place, it installs nothing), the command's wall time;
  * sbatch-wait: `sbatch --wait` of `python3 -m trainer.task` (Slurm installs nothing either);
    sbatch --wait checks the job every 2 s, so this is what a user waiting on sbatch sees;
  * sbatch-poll: `sbatch`, then `squeue` every 20 ms until the job left the running states,
    which shows Slurm's own latency without sbatch --wait's 2 s polling;
  * direct: `python3 -m trainer.task` started by the client (the floor: only the interpreter).
Every path also gives "launch": from submit to the moment the trainer's module started running
(the time it prints), so the interpreter's start is inside every launch figure.

pip alone: the stager's `pip install --target` of the same sdist, run directly (up to 3 times),
which bounds the package path from below.

Internal latency (trainyard only): N jobs in sequence whose command is `/bin/date` printing the
time it ran (a native program starts in about a millisecond), so that createTime -> that time is
trainyard's own submit -> exec latency, from its own timestamps (createTime is stamped by the
server when it accepts the POST), with no interpreter in it; with the startTime and endTime the
server records, it splits into queue (createTime -> startTime), launch (startTime -> exec) and
finish (exec -> endTime).
"""

import pathlib
import shutil
import struct
import subprocess
import time
import zipfile

import bench_lib as lib

PROJECT = "bench"
TASK_PATH = lib.TRAINER_DIR / "trainer" / "task.py"


def first_line(api, job_id):
    body = {"resourceNames": [f"projects/{PROJECT}"], "orderBy": "timestamp asc", "pageSize": 5,
            "filter": f'resource.labels.job_id="{job_id}" AND '
                      'resource.labels.task_name="master-replica-0"'}
    entries = api.entries(body).get("entries", [])
    return entries[0].get("textPayload", "") if entries else ""


def run_trainyard(api, job):
    final, t0, seen = lib.run_to_success(api, PROJECT, job)
    started = lib.started_at(first_line(api, job["jobId"]))
    return {"e2e": seen - t0, "launch": started - t0,
            "create_to_exec": started - lib.parse_time(final["createTime"])}


def run_gcloud(gcloud):
    elapsed, t0, out = gcloud.local_train("trainer.task", lib.TRAINER_DIR / "trainer")
    return {"e2e": elapsed, "launch": lib.started_at(out) - t0}


def slurm_script(out_path):
    return ["-o", str(out_path), "--wrap",
            f"PYTHONPATH={lib.TRAINER_DIR} exec {lib.PYTHON} -m trainer.task"]


def run_sbatch_wait(slurm, n):
    out = slurm.out / f"trivial-wait-{n}.out"
    t0 = time.time()
    job_id = slurm.sbatch("--wait", *slurm_script(out))
    elapsed = time.time() - t0
    return {"e2e": elapsed, "launch": lib.started_at(out.read_text()) - t0, "id": job_id}


def run_sbatch_poll(slurm, n):
    out = slurm.out / f"trivial-poll-{n}.out"
    t0 = time.time()
    job_id = slurm.sbatch(*slurm_script(out))
    while True:
        state = slurm.state(job_id)
        if state not in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING", ""):
            break
        time.sleep(0.02)
    elapsed = time.time() - t0
    if state not in ("COMPLETED", "GONE"):
        raise RuntimeError(f"slurm job {job_id}: {state}")
    return {"e2e": elapsed, "launch": lib.started_at(out.read_text()) - t0}


def run_direct():
    env = {"PYTHONPATH": str(lib.TRAINER_DIR), "PATH": "/usr/bin:/bin"}
    t0 = time.time()
    done = subprocess.run([lib.PYTHON, "-m", "trainer.task"], env=env, capture_output=True,
                          text=True, check=True)
    elapsed = time.time() - t0
    return {"e2e": elapsed, "launch": lib.started_at(done.stdout) - t0}


def pip_alone(sdist, work):
    """`pip install` with the options of trainyard's stager (run/local/pip_stager.cc), run directly
    as `python3 -m pip` (the stager runs pip in-process, with a fixed user agent)."""
    target = pathlib.Path(work) / "pip-target"
    shutil.rmtree(target, ignore_errors=True)
    cmd = [lib.PYTHON, "-m", "pip", "install", "--no-index", "--no-deps", "--no-build-isolation",
           "--disable-pip-version-check", "--no-input", "--no-cache-dir",
           "--no-warn-script-location", "--target", str(target), str(sdist)]
    env = {"PATH": "/usr/bin:/bin", "PIP_NO_INDEX": "1", "PIP_ROOT_USER_ACTION": "ignore",
           "HOME": str(target)}
    t0 = time.time()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.time() - t0
    shutil.rmtree(target, ignore_errors=True)
    return elapsed


def fresh_copy(sdist, work, n):
    """`sdist` with another gzip header mtime: new bytes (a new cache key), the same files."""
    data = bytearray(pathlib.Path(sdist).read_bytes())
    data[4:8] = struct.pack("<I", 1_000_000 + n)
    out = pathlib.Path(work) / "fresh" / str(n) / pathlib.Path(sdist).name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(bytes(data))
    return out


def build_wheel(sdist, work):
    """The trainer as a pure wheel, built by pip from the source the sdist was made from."""
    out = pathlib.Path(work) / "wheel"
    subprocess.run([lib.PYTHON, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
                    "--no-build-isolation", "--disable-pip-version-check", "-w", str(out),
                    str(pathlib.Path(sdist).parent.parent)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return next(out.glob("*-py3-none-any.whl"))


def fresh_wheel(wheel, work, n):
    """`wheel` with another zip comment: new bytes (a new cache key), the same files."""
    out = pathlib.Path(work) / "fresh-wheel" / str(n) / wheel.name
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, src.read(item))
        dst.comment = f"trainyard bench {n}".encode()
    return out


def internal_latency(api, count):
    rows = []
    for i in range(count):
        job = lib.command_job(f"date_{i}", ["/bin/date", "+started %s.%N"])
        t0 = time.time()
        api.create(PROJECT, job)
        final, seen = lib.wait_terminal(api, PROJECT, job["jobId"])
        if final["state"] != "SUCCEEDED":
            raise RuntimeError(f"date_{i}: {final['state']} {final.get('errorMessage', '')}")
        created = lib.parse_time(final["createTime"])
        started = lib.parse_time(final["startTime"])
        ended = lib.parse_time(final["endTime"])
        exec_at = lib.started_at(first_line(api, job["jobId"]))
        rows.append({"create_to_exec": exec_at - created, "queue": started - created,
                     "launch": exec_at - started, "finish": ended - exec_at,
                     "client_e2e": seen - t0, "client_to_create": created - t0})
    return rows


def main():
    parser = lib.scenario_parser(reps=15)
    parser.add_argument("--internal", type=int, default=200)
    args = parser.parse_args()

    gcloud = lib.Gcloud(args.work)
    slurm = lib.Slurm(args.work)
    sdist = lib.build_sdist(args.work)
    wheel = build_wheel(sdist, args.work)
    samples = {"trainyard-package-first": [], "trainyard-wheel-first": [],
               "trainyard-package": [], "trainyard-command": [], "direct": []}
    if gcloud.available:
        samples["gcloud"] = []
    if slurm.available:
        samples.update({"sbatch-wait": [], "sbatch-poll": []})
    result = {"scenario": "trivial", "machine_before": lib.machine(), "reps": args.reps,
              "package": sdist.name, "peers": {"gcloud": bool(gcloud.available),
                                               "slurm": bool(slurm.available)}}
    with lib.Server(args.binary, args.work, "trivial") as server:
        api = server.api()
        run_trainyard(api, lib.package_job("pkg_warm", sdist))  # installs it: later ones hit
        for rep in range(args.reps):
            runs = {
                "trainyard-package-first": lambda: run_trainyard(
                    api, lib.package_job(f"pkg_first_{rep}", fresh_copy(sdist, args.work, rep))),
                "trainyard-wheel-first": lambda: run_trainyard(
                    api, lib.package_job(f"whl_first_{rep}", fresh_wheel(wheel, args.work, rep))),
                "trainyard-package": lambda: run_trainyard(
                    api, lib.package_job(f"pkg_{rep}", sdist)),
                "trainyard-command": lambda: run_trainyard(
                    api, lib.command_job(f"cmd_{rep}", [lib.PYTHON, str(TASK_PATH)])),
                "gcloud": lambda: run_gcloud(gcloud),
                "sbatch-wait": lambda: run_sbatch_wait(slurm, rep),
                "sbatch-poll": lambda: run_sbatch_poll(slurm, rep),
                "direct": run_direct,
            }
            line = []
            for path in samples:
                sample = runs[path]()
                samples[path].append(sample)
                line.append(f"{path} {sample['e2e'] * 1000:.0f} ms")
            lib.log(f"trivial rep {rep + 1}/{args.reps}: " + ", ".join(line))
        pip = [pip_alone(sdist, args.work) for _ in range(min(3, args.reps))]
        lib.log(f"trivial: {args.internal} /bin/date jobs in sequence (internal latency)")
        internal = internal_latency(api, args.internal)
    result["samples"] = samples
    result["internal"] = internal
    result["pip_alone"] = lib.summarize(pip)
    result["summary"] = {
        path: {key: lib.summarize([s[key] for s in rows]) for key in rows[0] if key != "id"}
        for path, rows in samples.items()}
    result["internal_summary"] = {
        key: lib.summarize([row[key] for row in internal]) for key in internal[0]}
    lib.write_result(args.out, result)


if __name__ == "__main__":
    main()
