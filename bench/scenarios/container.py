"""Scenario 8 (issue #16): a container-image job through trainyard against `podman run` of the
same image with the same flags, on the same machine.

    container.py --binary TRAINYARD --work DIR --out RESULT.json [--reps N]

Needs podman and trainyard's base image (scripts/base_image.sh, run here: it returns at once when
the image exists). Builds the benchmark trainer into an image, `localhost/trainyard-bench/trainer`
(the base image plus bench/scenarios/trainer, ENTRYPOINT `python3 /opt/trainer/trainer/task.py`,
which prints the time its module started: `bench-trainer master-0 started <time>`), kept in
podman's storage for the next run. Then, on one `trainyard serve`:

  * the flags: a warm-up job whose container sleeps 2 s (containerCommand `/bin/sleep 2`) while
    the scenario reads its supervisor's command line from /proc: everything after `--` is the
    `podman run` trainyard runs. The podman path runs exactly that argv with its own `--name`,
    labels and no `--entrypoint` (so the image's ENTRYPOINT runs, as in the trainyard job);
  * one unmeasured run of each path (first starts of the image are slower);
  * each repetition runs both paths once, in alternating order:
      - trainyard: POST a BASIC job whose masterConfig.imageUri is the image (no command: the
        image's ENTRYPOINT), then GET every 20 ms until it is terminal; the first line comes
        from the logs (entries:list of master-replica-0), as trivial.py reads it;
      - podman: the captured `podman run` argv started by the client, its stdout read;
      - direct (the floor without a container): `python3 trainer/task.py` on the host.
Reported, per path: submit (or start) -> the first line printed (the time the trainer printed,
the same host clock as the client's), and -> the job or process seen ended; p50/p90 and the
ratio trainyard / podman of the first-line figure (the aim of issue #16: ≤ 1.10). trainyard's
own timestamps split its figure: createTime -> startTime (queued, placed), startTime -> the
service log's "Using the local image" (the `podman image exists` check on the staging thread),
-> "Started 1 replica." (the plan, the run record, the supervisor spawned), -> the first line
(`podman run` itself: the container's start and the interpreter's). `podman image exists` run
alone (3 times) gives that check's own cost.
"""

import os
import shutil
import subprocess
import time
from pathlib import Path

import bench_lib as lib
import trivial

PROJECT = "bench"
IMAGE = "localhost/trainyard-bench/trainer:latest"
BASE_IMAGE = "localhost/trainyard/debian-python:bookworm"
POLL_S = 0.02
CONTAINERFILE = f"""FROM {BASE_IMAGE}
COPY trainer/ /opt/trainer/
ENTRYPOINT ["python3", "/opt/trainer/trainer/task.py"]
"""


def container_job(job_id, command=None):
    master = {"imageUri": IMAGE}
    if command:
        master["containerCommand"] = list(command)
    return {"jobId": job_id, "labels": {"bench": "scenarios"},
            "trainingInput": {"region": lib.REGION, "scaleTier": "BASIC",
                              "masterConfig": master}}


def build_image(podman, work):
    """The base image (scripts/base_image.sh) and the benchmark trainer's image on it."""
    subprocess.run([str(lib.REPO / "scripts" / "base_image.sh")], check=True,
                   stdout=subprocess.DEVNULL)
    context = Path(work) / "container-image"
    shutil.rmtree(context, ignore_errors=True)
    shutil.copytree(lib.TRAINER_DIR / "trainer", context / "trainer" / "trainer",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (context / "Containerfile").write_text(CONTAINERFILE)
    done = subprocess.run([podman, "build", "-q", "-t", IMAGE, "-f",
                           str(context / "Containerfile"), str(context)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"podman build: {done.stderr.strip()}")
    shutil.rmtree(context, ignore_errors=True)


def supervisor_argv(container_name, timeout=30):
    """The `podman run` argv of the supervisor (trainyard-replica) running `container_name`,
    from its /proc/PID/cmdline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1]
            except OSError:
                continue
            argv = [a.decode() for a in argv]
            if (argv and argv[0].endswith("trainyard-replica") and "--container" in argv
                    and argv[argv.index("--container") + 1] == container_name and "--" in argv):
                return argv[argv.index("--") + 1:]
        time.sleep(0.005)
    raise RuntimeError(f"no trainyard-replica running the container {container_name} appeared "
                       f"within {timeout} s")


def podman_argv(captured, name):
    """trainyard's argv for another container: `name`, our own label, no --entrypoint."""
    out, i = [], 0
    while i < len(captured):
        arg = captured[i]
        if arg in ("--name", "--label", "--entrypoint"):
            if arg == "--name":
                out += ["--name", name, "--label", "trainyard-bench.path=podman"]
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def run_trainyard(api, job_id):
    t0 = time.time()
    api.create(PROJECT, container_job(job_id))
    final, seen = lib.wait_terminal(api, PROJECT, job_id, interval=POLL_S)
    if final["state"] != "SUCCEEDED":
        raise RuntimeError(f"{job_id}: {final['state']} {final.get('errorMessage', '')}")
    started = lib.started_at(trivial.first_line(api, job_id))
    if started is None:
        raise RuntimeError(f"{job_id}: the trainer's line is not in the master's log")
    created = lib.parse_time(final["createTime"])
    start_time = lib.parse_time(final["startTime"])
    sample = {"first_line": started - t0, "e2e": seen - t0, "create_to_exec": started - created,
              "queue": start_time - created}
    checked = service_time(api, job_id, "Using the local image")
    spawned = service_time(api, job_id, "Started 1 replica")
    if checked is not None and spawned is not None:
        sample["image_check"] = checked - start_time
        sample["launch"] = spawned - checked
        sample["spawn_to_exec"] = started - spawned
    return sample


def service_time(api, job_id, prefix):
    """The time of the job's first service-log line that starts with `prefix` (None: none)."""
    body = {"resourceNames": [f"projects/{PROJECT}"], "orderBy": "timestamp asc", "pageSize": 50,
            "filter": f'resource.labels.job_id="{job_id}" AND '
                      'resource.labels.task_name="service"'}
    for entry in api.entries(body).get("entries", []):
        text = entry.get("textPayload") or entry.get("jsonPayload", {}).get("message", "")
        if text.startswith(prefix):
            return lib.parse_time(entry["timestamp"])
    return None


def run_podman(argv):
    t0 = time.time()
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    ended = time.time()
    started = lib.started_at(done.stdout)
    if done.returncode != 0 or started is None:
        raise RuntimeError(f"podman run: exit {done.returncode}: {done.stdout}{done.stderr}")
    return {"first_line": started - t0, "e2e": ended - t0}


def run_direct():
    t0 = time.time()
    done = subprocess.run([lib.PYTHON, str(trivial.TASK_PATH)], env={"PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, check=True)
    return {"first_line": lib.started_at(done.stdout) - t0, "e2e": time.time() - t0}


def image_exists_alone(podman):
    t0 = time.time()
    subprocess.run([podman, "image", "exists", IMAGE], check=True)
    return time.time() - t0


def main():
    parser = lib.scenario_parser(reps=15)
    args = parser.parse_args()

    podman = shutil.which("podman")
    if not podman:
        raise SystemExit("container: podman is not installed (scripts/setup.sh installs it)")
    lib.log(f"container: building {IMAGE} on {BASE_IMAGE}")
    build_image(podman, args.work)
    samples = {"trainyard": [], "podman": [], "direct": []}
    result = {"scenario": "container", "machine_before": lib.machine(), "reps": args.reps,
              "image": IMAGE, "poll_ms": POLL_S * 1000,
              "podman_version": subprocess.run([podman, "--version"], capture_output=True,
                                               text=True).stdout.strip()}
    with lib.Server(args.binary, args.work, "container", ("--containers", "podman")) as server:
        api = server.api()
        # The flags trainyard uses on this machine, read from its own supervisor.
        api.create(PROJECT, container_job("ctr_flags", ["/bin/sleep", "2"]))
        captured = supervisor_argv(f"trainyard-{PROJECT}-ctr_flags-master-replica-0")
        final, _ = lib.wait_terminal(api, PROJECT, "ctr_flags", interval=POLL_S)
        if final["state"] != "SUCCEEDED":
            raise RuntimeError(f"ctr_flags: {final['state']} {final.get('errorMessage', '')}")
        result["trainyard_argv"] = captured
        lib.log("container: trainyard runs " + " ".join(captured))
        runs = {"trainyard": lambda rep: run_trainyard(api, f"ctr_{rep}"),
                "podman": lambda rep: run_podman(
                    podman_argv(captured, f"trainyard-bench-podman-{rep}")),
                "direct": lambda rep: run_direct()}
        result["podman_argv"] = podman_argv(captured, "trainyard-bench-podman-N")
        for path, run in runs.items():  # warm-up, not measured
            run("warmup")
        for rep in range(args.reps):
            order = list(runs) if rep % 2 == 0 else ["podman", "trainyard", "direct"]
            line = []
            for path in order:
                sample = runs[path](rep)
                samples[path].append(sample)
                line.append(f"{path} {sample['first_line'] * 1000:.0f} ms")
            lib.log(f"container rep {rep + 1}/{args.reps} (submit -> first line): "
                    + ", ".join(line))
        result["image_exists_alone"] = lib.summarize(
            [image_exists_alone(podman) for _ in range(min(3, args.reps))])
    left = subprocess.run([podman, "ps", "-a", "-q", "--filter", "name=trainyard-bench"],
                          capture_output=True, text=True).stdout.split()
    if left:
        raise RuntimeError(f"containers left behind: {left}")
    result["samples"] = samples
    result["summary"] = {
        path: {key: lib.summarize([s[key] for s in rows if key in s]) for key in rows[0]}
        for path, rows in samples.items()}
    s = result["summary"]
    result["ratio"] = {q: s["trainyard"]["first_line"][q] / s["podman"]["first_line"][q]
                       for q in ("median", "p90")}
    lib.log(f"container: trainyard / podman (submit -> first line): p50 "
            f"{result['ratio']['median']:.3f}, p90 {result['ratio']['p90']:.3f}")
    lib.write_result(args.out, result)


if __name__ == "__main__":
    main()
