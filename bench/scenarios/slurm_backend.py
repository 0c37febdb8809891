"""Scenario 7 (issue #9): trainyard on Slurm against plain Slurm, the same job on the same cluster.

    slurm_backend.py --binary TRAINYARD --work DIR --out RESULT.json [--reps N]

Needs the cluster bench/run started (SLURM_CONF in the environment; its nodes must hold the
machine type trainyard asks for: BASIC is one n1-standard-4, 4 CPUs and 15 GB, and bench/run's
nodes have 16 CPUs and 16,000 MB). Each repetition runs both paths once, in turn:
  * slurm: `sbatch` of `python3 -m trainer.task`, then `squeue` every 20 ms until the job left the
    running states: trivial.py's `run_sbatch_poll`, the same function (Slurm's own latency,
    without `sbatch --wait`'s 2 s polling);
  * trainyard-slurm: `trainyard serve --backend slurm` (its own data directory, the same cluster)
    running the trainer module as a container command (BASIC tier, one replica, nothing staged:
    trivial.py's command row); the job becomes one Slurm job whose task runs `trainyard
    batch-task`; the client POSTs it and GETs it every 20 ms until it is terminal.
Reported: p50/p90 of submit -> terminal seen for each, and trainyard-slurm / slurm (the overhead
of trainyard on top of Slurm). trainyard's own timestamps split its figure: createTime ->
startTime (submitted to Slurm, the allocation running) and startTime -> endTime.
"""

import pathlib

import bench_lib as lib
import trivial

PROJECT = "bench"
POLL_S = 0.02
# The Slurm backend's operator file: no slurmdbd on the bench cluster, so finished jobs are read
# from the jobcomp log (`sacct -c`); replicas' ports away from the test cluster's (30000+).
SLURM_CONFIG = """partition: debug
finished_jobs: jobcomp
ports: {first: 22000, count: 2000}
"""


def run_trainyard(api, job):
    final, t0, seen = lib.run_to_success(api, PROJECT, job, interval=POLL_S)
    created = lib.parse_time(final["createTime"])
    sample = {"e2e": seen - t0,
              "create_to_start": lib.parse_time(final["startTime"]) - created,
              "start_to_end": lib.parse_time(final["endTime"]) - lib.parse_time(final["startTime"]),
              "end_to_seen": seen - lib.parse_time(final["endTime"])}
    started = lib.started_at(trivial.first_line(api, job["jobId"]))
    if started is not None:
        sample["launch"] = started - t0
    return sample


def main():
    parser = lib.scenario_parser(reps=15)
    args = parser.parse_args()

    slurm = lib.Slurm(args.work)
    if not slurm.available:
        raise SystemExit("slurm_backend: no Slurm cluster (SLURM_CONF unset or sbatch missing)")
    config = pathlib.Path(args.work) / "slurm-backend.yaml"
    config.write_text(SLURM_CONFIG)
    samples = {"slurm": [], "trainyard-slurm": []}
    result = {"scenario": "slurm_backend", "machine_before": lib.machine(), "reps": args.reps,
              "poll_ms": POLL_S * 1000, "slurm_conf": slurm.conf, "slurm_config": SLURM_CONFIG,
              "job": "BASIC (one n1-standard-4 replica), `python3 trainer/task.py` as a command"}
    extra = ["--backend", "slurm", "--slurm-config", str(config)]
    with lib.Server(args.binary, args.work, "slurm-backend", extra) as server:
        api = server.api()
        command = [lib.PYTHON, str(trivial.TASK_PATH)]
        for rep in range(args.reps):
            runs = {"slurm": lambda: trivial.run_sbatch_poll(slurm, f"sb-{rep}"),
                    "trainyard-slurm": lambda: run_trainyard(
                        api, lib.command_job(f"slurm_cmd_{rep}", command))}
            line = []
            for path, run in runs.items():
                sample = run()
                samples[path].append(sample)
                line.append(f"{path} {sample['e2e'] * 1000:.0f} ms")
            lib.log(f"slurm_backend rep {rep + 1}/{args.reps}: " + ", ".join(line))
    result["samples"] = samples
    result["summary"] = {
        path: {key: lib.summarize([s[key] for s in rows if key in s]) for key in rows[0]}
        for path, rows in samples.items()}
    base = result["summary"]["slurm"]["e2e"]["median"]
    result["overhead_ratio"] = result["summary"]["trainyard-slurm"]["e2e"]["median"] / base
    lib.write_result(args.out, result)


if __name__ == "__main__":
    main()
