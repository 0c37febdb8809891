"""Scenario 2: a distributed job end to end (master + 2 workers + 1 parameter server).

    distributed.py --binary TRAINYARD --work DIR --out RESULT.json [--reps N]

The benchmark trainer (trainer/task.py) makes the four replicas meet: the master listens on its
TF_CONFIG address until the three others have connected, so a job succeeds only once every
replica ran. Paths, one of each per repetition, in turn:
  * trainyard-package: a CUSTOM job (n1-standard-4 master, 2 workers, 1 parameter server) whose
    package trainyard stages once with pip, then starts the 4 replicas; the client POSTs it and
    polls GET every 2 ms;
  * trainyard-command: the same cluster running the module file as a container command
    (nothing staged);
  * gcloud: `gcloud ai-platform local train --distributed --worker-count 2
    --parameter-server-count 1`, the command's wall time.
"""

import bench_lib as lib

PROJECT = "bench"
CLUSTER = {"workers": 2, "ps": 1}
TASK_PATH = lib.TRAINER_DIR / "trainer" / "task.py"


def run_trainyard(api, job):
    final, t0, seen = lib.run_to_success(api, PROJECT, job)
    return {"e2e": seen - t0,
            "create_to_end": lib.parse_time(final["endTime"]) - lib.parse_time(final["createTime"])}


def run_gcloud(gcloud):
    extra = ["--distributed", "--worker-count", "2", "--parameter-server-count", "1"]
    elapsed, _, out = gcloud.local_train("trainer.task", lib.TRAINER_DIR / "trainer", extra)
    if "met 3 tasks" not in out:
        raise RuntimeError(f"gcloud --distributed: the replicas did not meet: {out}")
    return {"e2e": elapsed}


def main():
    parser = lib.scenario_parser(reps=7)
    args = parser.parse_args()

    gcloud = lib.Gcloud(args.work)
    sdist = lib.build_sdist(args.work)
    samples = {"trainyard-package": [], "trainyard-command": []}
    if gcloud.available:
        samples["gcloud"] = []
    result = {"scenario": "distributed", "machine_before": lib.machine(), "reps": args.reps,
              "cluster": "master + 2 workers + 1 parameter server",
              "peers": {"gcloud": bool(gcloud.available)}}
    with lib.Server(args.binary, args.work, "distributed") as server:
        api = server.api()
        for rep in range(args.reps):
            runs = {
                "trainyard-package": lambda: run_trainyard(
                    api, lib.package_job(f"dpkg_{rep}", sdist, cluster=CLUSTER)),
                "trainyard-command": lambda: run_trainyard(
                    api, lib.command_job(f"dcmd_{rep}", [lib.PYTHON, str(TASK_PATH)], CLUSTER)),
                "gcloud": lambda: run_gcloud(gcloud),
            }
            line = []
            for path in samples:
                sample = runs[path]()
                samples[path].append(sample)
                line.append(f"{path} {sample['e2e'] * 1000:.0f} ms")
            lib.log(f"distributed rep {rep + 1}/{args.reps}: " + ", ".join(line))
        # The replicas met: the master's log says so (checked once, on the last package job).
        body = {"resourceNames": [f"projects/{PROJECT}"], "pageSize": 50,
                "filter": f'resource.labels.job_id="dpkg_{args.reps - 1}"'}
        texts = [e.get("textPayload", "") for e in api.entries(body).get("entries", [])]
        if not any("met 3 tasks" in t for t in texts):
            raise RuntimeError(f"trainyard: the replicas did not meet: {texts}")
    result["samples"] = samples
    result["summary"] = {path: {key: lib.summarize([s[key] for s in rows]) for key in rows[0]}
                         for path, rows in samples.items()}
    lib.write_result(args.out, result)


if __name__ == "__main__":
    main()
