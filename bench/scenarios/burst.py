"""Scenario 3: a burst of trivial jobs submitted as fast as the client can.

    burst.py --binary TRAINYARD --work DIR --out RESULT.json [--jobs N] [--reps R] [--clients C]

Each job runs `/bin/echo hello` (a native one-line print, so that the figure is the scheduler's
and not N interpreter starts: python3 alone costs 20-40 ms of CPU per start, which would cap 2
cores at about 50-100 jobs/s whatever schedules them). Per repetition:
  * trainyard: a fresh server; C client threads, each with its own keep-alive connection, POST
    their share of N custom-container jobs back to back; the client then polls /metrics (the
    store's indexed count by state) every 20 ms until all N are terminal, and lists them
    (jobs.list, filter state=SUCCEEDED) to check they all succeeded and to read each job's
    createTime, startTime and endTime;
  * slurm-array: one `sbatch --array=0-(N-1) --wrap 'echo hello'`;
  * slurm-sbatch: N separate `sbatch --wrap 'echo hello'` calls, C at a time;
  for Slurm the client polls squeue every 100 ms until no job is pending or running, then checks
  that the N output files say hello.
Figures: submissions/s (first POST or sbatch to the last answer), jobs completed per second
(N / time from the first submit until the last job is terminal) and that time itself. For
trainyard the last job's endTime (the server's clock) gives the exact time; the poll is a check.
"""

import concurrent.futures
import os
import subprocess
import time

import bench_lib as lib

PROJECT = "burst"
COMMAND = ["/bin/echo", "hello"]


def trainyard_burst(binary, work, jobs, clients, rep):
    with lib.Server(binary, work, f"burst-{rep}") as server:
        apis = [server.api() for _ in range(clients)]
        for api in apis:  # open the connections before the clock starts
            api.call("GET", "/healthz")

        def submit(worker):
            for i in range(worker, jobs, clients):
                apis[worker].create(PROJECT, lib.command_job(f"b{rep}_{i:05d}", COMMAND))

        cpu0, threads0 = server.cpu_seconds(), server.thread_cpu_seconds()
        children0, busy0 = server.children_cpu_seconds(), lib.machine_busy_seconds()
        t0 = time.time()
        with concurrent.futures.ThreadPoolExecutor(clients) as pool:
            list(pool.map(submit, range(clients)))
        submitted = time.time()
        poller = apis[0]
        while True:
            counts = poller.job_counts()
            if sum(counts.get(s, 0) for s in lib.TERMINAL) >= jobs:
                break
            time.sleep(0.02)
        seen = time.time()
        cpu = server.cpu_seconds() - cpu0
        threads = server.thread_cpu_seconds()
        busiest = max(threads[t] - threads0.get(t, 0) for t in threads)
        children = server.children_cpu_seconds() - children0
        busy = lib.machine_busy_seconds() - busy0
        listed = poller.list_all(PROJECT, "state=SUCCEEDED")
        if len(listed) != jobs:
            raise RuntimeError(
                f"trainyard burst: {len(listed)} of {jobs} jobs SUCCEEDED ({counts})")
        created = [lib.parse_time(j["createTime"]) for j in listed]
        started = [lib.parse_time(j["startTime"]) for j in listed]
        ended = [lib.parse_time(j["endTime"]) for j in listed]
        last = max(ended)
        return {
            "submit_s": submitted - t0, "last_terminal_s": last - t0, "seen_s": seen - t0,
            "submit_rate": jobs / (submitted - t0), "completion_rate": jobs / (last - t0),
            "server_cpu_s": cpu, "peak_rss_kib": server.peak_rss_kib(),
            # Per job: the server's busiest thread (the executor's loop, which places and launches
            # jobs one at a time), all its threads, its reaped children (the supervisors and the
            # programs they waited for), and the whole machine's busy time.
            "busiest_thread_ms_per_job": 1000 * busiest / jobs,
            "server_ms_per_job": 1000 * cpu / jobs, "children_ms_per_job": 1000 * children / jobs,
            "machine_busy_share": busy / ((seen - t0) * os.cpu_count()),
            "create_to_start": [s - c for s, c in zip(started, created)],
            "create_to_end": [e - c for e, c in zip(ended, created)],
        }


def wait_slurm_idle(slurm, t0, timeout=600):
    while slurm.unfinished() > 0:
        if time.time() - t0 > timeout:
            raise RuntimeError("slurm burst: jobs still unfinished after the timeout")
        time.sleep(0.1)
    return time.time()


def count_hello(directory, pattern):
    files = list(directory.glob(pattern))
    return sum(1 for f in files if f.read_text().strip() == "hello")


def slurm_finish(slurm, out, jobs, t0, submitted, what):
    """Waits until Slurm is idle, checks that every job said hello in `out`, and returns the
    burst's figures; `what` names the shortfall ("... {ok} of {jobs} tasks")."""
    done = wait_slurm_idle(slurm, t0)
    ok = count_hello(out, "*.out")
    if ok != jobs:
        raise RuntimeError(what.format(ok, jobs) + " said hello")
    return {"submit_s": submitted - t0, "last_terminal_s": done - t0,
            "submit_rate": jobs / (submitted - t0), "completion_rate": jobs / (done - t0)}


def slurm_array(slurm, jobs, rep):
    out = slurm.out / f"array-{rep}"
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    slurm.sbatch(f"--array=0-{jobs - 1}", "-o", str(out / "%A_%a.out"), "--wrap", "echo hello")
    return slurm_finish(slurm, out, jobs, t0, time.time(), "slurm array: {} of {} tasks")


def slurm_separate(slurm, jobs, clients, rep):
    out = slurm.out / f"separate-{rep}"
    out.mkdir(parents=True, exist_ok=True)
    script = ["-o", str(out / "%j.out"), "--wrap", "echo hello"]

    def submit(worker):
        for _ in range(worker, jobs, clients):
            done = subprocess.run(["sbatch", "--parsable", *script], capture_output=True)
            if done.returncode != 0:
                raise RuntimeError(f"sbatch: {done.stderr.decode().strip()}")

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(submit, range(clients)))
    return slurm_finish(slurm, out, jobs, t0, time.time(),
                        "slurm separate sbatch: {} of {} jobs")


def main():
    parser = lib.scenario_parser(reps=3)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    slurm = lib.Slurm(args.work)
    samples = {"trainyard": []}
    if slurm.available:
        samples.update({"slurm-array": [], "slurm-sbatch": []})
        wait_slurm_idle(slurm, time.time())
    result = {"scenario": "burst", "machine_before": lib.machine(), "jobs": args.jobs,
              "reps": args.reps, "clients": args.clients, "command": " ".join(COMMAND),
              "peers": {"slurm": bool(slurm.available)}}
    for rep in range(args.reps):
        runs = {
            "trainyard": lambda: trainyard_burst(args.binary, args.work, args.jobs, args.clients,
                                                 rep),
            "slurm-array": lambda: slurm_array(slurm, args.jobs, rep),
            "slurm-sbatch": lambda: slurm_separate(slurm, args.jobs, args.clients, rep),
        }
        line = []
        for path in samples:
            sample = runs[path]()
            samples[path].append(sample)
            line.append(f"{path} {sample['completion_rate']:.0f} jobs/s "
                        f"(last after {sample['last_terminal_s']:.2f} s)")
        lib.log(f"burst rep {rep + 1}/{args.reps} ({args.jobs} jobs): " + ", ".join(line))
    result["samples"] = samples
    scalar = ("submit_s", "last_terminal_s", "submit_rate", "completion_rate", "seen_s",
              "server_cpu_s", "busiest_thread_ms_per_job", "server_ms_per_job",
              "children_ms_per_job", "machine_busy_share")
    result["summary"] = {
        path: {key: lib.summarize([s[key] for s in rows]) for key in scalar if key in rows[0]}
        for path, rows in samples.items()}
    # Per-job latencies of every trainyard repetition together (the plot's distribution).
    for key in ("create_to_start", "create_to_end"):
        pooled = [x for s in samples["trainyard"] for x in s[key]]
        result["summary"]["trainyard"][key] = lib.summarize(pooled)
    lib.write_result(args.out, result)


if __name__ == "__main__":
    main()
