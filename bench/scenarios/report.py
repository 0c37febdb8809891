"""Writes the bench/run report: every scenario's figures, the ratios against the peers measured
in the same run, and each aim of issue #8 with its status.

    report.py --work DIR --meta META.json --out REPORT.md [--record RESULTS.md]

Reads DIR/{trivial,distributed,burst,logs,slurm_backend,container}.json (bench/scenarios/*.py) and
DIR/api-*.md (the tables bench/api/run.sh wrote, one per run); a scenario that is missing is
reported as not run.
With --record, replaces the block between the "bench/run" markers of RESULTS.md (or inserts it
after the title); everything else in that file is kept.
"""

import argparse
import json
import re
from pathlib import Path

import aims as aims_lib
import bench_lib as lib

BEGIN = "<!-- bench/run: begin (bench/run writes this block; edit the notes outside it) -->"
END = "<!-- bench/run: end -->"

TRIVIAL_PATHS = {
    "trainyard-package-first": "trainyard, a package it has not seen (sdist; built into a wheel, installed)",
    "trainyard-wheel-first": "trainyard, a package it has not seen (pure wheel; unpacked)",
    "trainyard-package": "trainyard, the same package resubmitted (sdist; already installed)",
    "trainyard-command": "trainyard, same module as a container command on the host (`--containers host`, nothing staged)",
    "gcloud": "`gcloud ai-platform local train`",
    "sbatch-wait": "Slurm `sbatch --wait`",
    "sbatch-poll": "Slurm `sbatch`, then `squeue` every 20 ms",
    "direct": "`python3 -m trainer.task` started directly (floor)",
}


def ms(x):
    return "–" if x is None else (f"{x * 1000:.1f}" if x < 0.1 else f"{x * 1000:,.0f}")


def num(x, digits=0):
    return "–" if x is None else f"{x:,.{digits}f}"


def spread(s, scale=ms):
    """median [min – max] of repeated runs."""
    if not s or not s.get("n"):
        return "–"
    if s["n"] == 1:
        return f"{scale(s['median'])} (1 run)"
    return f"{scale(s['median'])} [{scale(s['min'])} – {scale(s['max'])}]"


def ratio(a, b):
    if not a or not b:
        return "–"
    r = a / b
    return f"{r:.2f}×" if r < 1 else f"{r:.1f}×"


def runs(n):
    return f"{n} run{'s' if n != 1 else ''}"


FAILED = set()  # scenarios whose script failed in this run (meta.json)


def absent(name):
    if name in FAILED:
        return f"**Failed in this run** (its log is `{name}.log` in the work directory)."
    return "Not run."


def load(work, name):
    path = Path(work) / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def trivial_section(t, aims):
    out = (["### 1. Trivial job end to end", ""] + aims_lib.aim_lines(aims, "trivial")[:-1] +
           aims_lib.aim_lines(aims, "staging"))
    if not t:
        return out + [absent("trivial"), ""]
    s = t["summary"]
    base = s["trainyard-package"]["e2e"]["median"]
    cmd = s["trainyard-command"]["e2e"]["median"]
    out += [f"{runs(t['reps'])} of each path, interleaved. Time in ms: median [min – max]. "
            "*Launch* is from submit to the moment the trainer's module started running (the "
            "time it prints), so it includes the interpreter's start. The ratios divide a path's "
            "median by trainyard's (above 1: trainyard is faster).", "",
            "| path | submit → SUCCEEDED seen, ms | launch, ms | ÷ trainyard (package) "
            "| ÷ trainyard (command) |", "|---|---:|---:|---:|---:|"]
    for path, label in TRIVIAL_PATHS.items():
        if path not in s:
            continue
        e2e = s[path]["e2e"]
        out.append(f"| {label} | {spread(e2e)} | {spread(s[path]['launch'])} | "
                   f"{ratio(e2e['median'], base)} | {ratio(e2e['median'], cmd)} |")
    missing = [p for p in ("gcloud", "sbatch-wait") if p not in s]
    if missing:
        out += ["", f"Not measured (peer unavailable): {', '.join(missing)}."]
    i = t["internal_summary"]
    out += ["", f"**trainyard's own submit → exec latency**, {i['create_to_exec']['n']} jobs in "
            "sequence running `/bin/date` (a native program, so no interpreter is inside), from "
            "the server's timestamps: `createTime` (stamped when it accepts the POST) to the "
            "time `date` printed; split by `startTime` into queueing and launching:", "",
            "| interval | p50 ms | p90 ms | p99 ms | max ms |", "|---|---:|---:|---:|---:|"]
    for key, label in (("create_to_exec", "createTime → exec (the program runs)"),
                       ("queue", "createTime → startTime (queued, placed)"),
                       ("launch", "startTime → exec (run record, supervisor, exec)"),
                       ("finish", "exec → endTime (exit seen, job recorded)"),
                       ("client_e2e", "client: POST → SUCCEEDED seen (2 ms polling)")):
        x = i[key]
        out.append(f"| {label} | {ms(x['median'])} | {ms(x['p90'])} | {ms(x['p99'])} | "
                   f"{ms(x['max'])} |")
    py = s["trainyard-command"]["create_to_exec"]["median"]
    interp = s["direct"]["launch"]["median"]
    out += ["", f"With Python: createTime → the module running is {ms(py)} ms (median, "
            f"`trainer.task` as a command); the interpreter alone, started directly, takes "
            f"{ms(interp)} ms to reach the module, so trainyard's share is about "
            f"{ms(py - interp)} ms.", ""]
    return out


def distributed_section(d):
    out = ["### 2. Distributed job end to end (master + 2 workers + 1 parameter server)", ""]
    if not d:
        return out + [absent("distributed"), ""]
    s = d["summary"]
    base = s["trainyard-package"]["e2e"]["median"]
    cmd = s["trainyard-command"]["e2e"]["median"]
    out += [f"{runs(d['reps'])} of each path. The four replicas meet (the master waits until "
            "the three others connected to its TF_CONFIG address), so a run ends only after every "
            "replica ran. Time in ms, median [min – max].", "",
            "| path | submit → SUCCEEDED seen, ms | ÷ trainyard (package) "
            "| ÷ trainyard (command) |",
            "|---|---:|---:|---:|"]
    labels = {"trainyard-package": "trainyard, package staged once by pip (the first run "
                                   "installs it, later runs find it in the package cache)",
              "trainyard-command": "trainyard, module as a container command on the host",
              "gcloud": "`gcloud ai-platform local train --distributed --worker-count 2 "
                        "--parameter-server-count 1`"}
    for path, label in labels.items():
        if path in s:
            e2e = s[path]["e2e"]
            out.append(f"| {label} | {spread(e2e)} | {ratio(e2e['median'], base)} | "
                       f"{ratio(e2e['median'], cmd)} |")
    return out + [""]


def burst_section(b, aims):
    out = ["### 3. Burst of trivial jobs", ""] + aims_lib.aim_lines(aims, "burst")
    if not b:
        return out + [absent("burst"), ""]
    s = b["summary"]
    ty = s["trainyard"]["completion_rate"]["median"]
    out += [f"{b['jobs']:,} jobs running `{b['command']}`, {runs(b['reps'])}, {b['clients']} "
            "concurrent clients. Median [min – max].", "",
            "| path | submissions/s | jobs completed/s | first submit → last terminal, s | "
            "trainyard ÷ path (jobs/s) |", "|---|---:|---:|---:|---:|"]
    labels = {"trainyard": "trainyard (HTTP, keep-alive)",
              "slurm-array": "Slurm, one `sbatch --array`",
              "slurm-sbatch": f"Slurm, {b['jobs']:,} separate `sbatch`"}
    for path, label in labels.items():
        if path not in s:
            continue
        x = s[path]
        out.append(f"| {label} | {spread(x['submit_rate'], num)} | "
                   f"{spread(x['completion_rate'], num)} | "
                   f"{spread(x['last_terminal_s'], lambda v: num(v, 2))} | "
                   f"{ratio(ty, x['completion_rate']['median'])} |")
    if "slurm-array" not in s:
        out += ["", "Slurm: not measured (no cluster)."]
    x = s["trainyard"]
    out += ["", f"trainyard per job, all runs together ({x['create_to_end']['n']:,} jobs): "
            f"createTime → startTime p50 {ms(x['create_to_start']['median'])} ms, p99 "
            f"{ms(x['create_to_start']['p99'])} ms; createTime → endTime p50 "
            f"{ms(x['create_to_end']['median'])} ms, p99 {ms(x['create_to_end']['p99'])} ms.", ""]
    if "busiest_thread_ms_per_job" in x:
        loop = x["busiest_thread_ms_per_job"]["median"]
        server = x["server_ms_per_job"]["median"]
        children = x["children_ms_per_job"]["median"]
        cpus = (b.get("machine_before") or {}).get("cpus") or 2
        out += [f"**What bounds it** (CPU per job, median over the runs): the server's busiest "
                f"thread, the executor's loop, which places and launches jobs one at a time, used "
                f"{num(loop, 2)} ms, so it alone caps the rate at about {num(1000 / loop)} jobs/s; "
                f"all the server's threads {num(server, 2)} ms; the supervisors and the programs "
                f"they ran {num(children, 2)} ms. Together {num(server + children, 2)} ms per job: "
                f"at most about {num(cpus * 1000 / (server + children))} jobs/s on {cpus} CPUs "
                "with nothing else running (the client is not counted). The machine was busy "
                f"{spread(x['machine_busy_share'], lambda v: f'{v * 100:.0f} %')} of the time "
                "while the bursts ran.", ""]
    return out


def api_tables(work):
    """Rows of every bench/api/run.sh table: {(measurement, connections): [row, ...]}."""
    rows, rss, others = {}, [], []
    for path in sorted(Path(work).glob("api-*.md")):
        for line in path.read_text().splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| server peak RSS"):
                rss.append(float(re.search(r"(\d+) MiB", line).group(1)))
            elif line.startswith("| CPU used by other"):
                others.append(cells[1])
            elif len(cells) == 6 and re.match(r"\d+$", cells[1]):
                rate = float(re.sub(r"[^\d.]", "", cells[2].split("(")[0]))
                rows.setdefault((cells[0], int(cells[1])), []).append(
                    {"rate": rate, "p50": float(cells[3]) / 1000, "p99": float(cells[4]) / 1000})
    return rows, rss, others


def api_section(work, meta, aims_of):
    rows, rss, others = api_tables(work)
    out = ["### 4. API (`bench/api/run.sh`)", ""] + aims_of("api")
    if not rows:
        return out + [absent("api"), ""]
    out += [f"{runs(len(rss))} of `bench/api/run.sh {meta.get('api_args', '')}` (wrk; each row a "
            "fixed-time wrk run against a store preloaded with that many jobs). Median [min – "
            "max] over the runs. No peer: the floor is `GET /healthz` on the same server "
            "(README: *Why /healthz*).", "",
            "| measurement | connections | requests/s | p50 ms | p99 ms | ÷ /healthz req/s |",
            "|---|---:|---:|---:|---:|---:|"]

    def median(name, conns, key):
        samples = rows.get((name, conns))
        return lib.summarize([x[key] for x in samples])["median"] if samples else None

    for (name, conns), samples in rows.items():
        cells = [spread(lib.summarize([x[k] for x in samples]), f)
                 for k, f in (("rate", num), ("p50", ms), ("p99", ms))]
        floor = ""
        if name.startswith("get "):
            healthz = median("GET /healthz (floor)", conns, "rate")
            floor = ratio(median(name, conns, "rate"), healthz)
        out.append(f"| {name} | {conns} | {' | '.join(cells)} | {floor} |")
    out += ["", f"Server peak RSS: {spread(lib.summarize(rss), lambda v: f'{v:.0f} MiB')}. "
            f"CPU used by other processes while measuring: {'; '.join(others)}. What bounds "
            "`create` and `get` (callgrind's instructions per request) is in the section *API "
            "speed and scale (issue #19)* below.", ""]
    return out


def slurm_backend_section(b):
    out = ["### 7. trainyard on Slurm against plain Slurm (issue #9)", ""]
    if not b:
        return out + [absent("slurm_backend"), ""]
    s = b["summary"]
    base = s["slurm"]["e2e"]["median"]
    ty = s["trainyard-slurm"]["e2e"]
    out += [f"**Aim** (issue #9): the overhead of trainyard on Slurm over plain `sbatch` for the "
            f"same job, measured in the same run. This run: {ratio(ty['median'], base)} "
            f"(+{ms(ty['median'] - base)} ms at the median).", "",
            f"The same trivial job (one replica, the trainer module, nothing staged) on the same "
            f"cluster, {runs(b['reps'])} of each path, interleaved; both clients poll every "
            f"{b['poll_ms']:.0f} ms. Time in ms from the submit to the client seeing the job "
            "finished (p50, p90, min – max) and, as *launch*, to the trainer's module running "
            "(p50).",
            "", "| path | p50 | p90 | min – max | ÷ plain Slurm (p50) | launch p50 |",
            "|---|---:|---:|---:|---:|---:|"]
    labels = {"slurm": "plain Slurm: `sbatch`, then `squeue` every 20 ms",
              "trainyard-slurm": "`trainyard serve --backend slurm`: POST, then GET every 20 ms"}
    for path, label in labels.items():
        x = s[path]["e2e"]
        launch = (s[path].get("launch") or {}).get("median")
        out.append(f"| {label} | {ms(x['median'])} | {ms(x['p90'])} | {ms(x['min'])} – "
                   f"{ms(x['max'])} | {ratio(x['median'], base)} | {ms(launch)} |")
    out += ["", f"trainyard's own timestamps (p50): createTime → startTime (queued, then "
            f"submitted with `sbatch`) {ms(s['trainyard-slurm']['create_to_start']['median'])} ms, "
            f"startTime → endTime {ms(s['trainyard-slurm']['start_to_end']['median'])} ms, "
            f"endTime → seen by the client {ms(s['trainyard-slurm']['end_to_seen']['median'])} "
            "ms.", ""]
    return out


def container_section(c, aims):
    out = ["### 8. Container image against `podman run` (issue #16)", ""]
    out += aims_lib.aim_lines(aims, "container")
    if not c:
        return out + [absent("container"), ""]
    s = c["summary"]
    base = s["podman"]["first_line"]
    out += [f"The benchmark trainer built into an image on trainyard's base image "
            f"(`{c['image']}`, {c.get('podman_version', 'podman')}), {runs(c['reps'])} of each "
            "path in alternating order after one unmeasured run of each. trainyard: a BASIC job "
            f"whose master runs the image, the client polling every {c['poll_ms']:.0f} ms; "
            "podman: the `podman run` command line trainyard used for a job of the same image "
            "(read from its replica supervisor), with its own name, started by the client. "
            "*First line*: from the submit (or the start of the command) to the time the trainer "
            "printed, as its module started. Time in ms.", "",
            "| path | first line p50 | p90 | min – max | ÷ `podman run` (p50) | ended, seen p50 |",
            "|---|---:|---:|---:|---:|---:|"]
    labels = {"trainyard": "trainyard: POST, the master's first line from its logs",
              "podman": "`podman run` with trainyard's flags, from the client",
              "direct": "`python3 trainer/task.py` on the host (no container)"}
    for path, label in labels.items():
        if path not in s:
            continue
        x = s[path]["first_line"]
        out.append(f"| {label} | {ms(x['median'])} | {ms(x['p90'])} | {ms(x['min'])} – "
                   f"{ms(x['max'])} | {x['median'] / base['median']:.2f}× | "
                   f"{ms(s[path]['e2e']['median'])} |")
    t = s["trainyard"]
    exists = c.get("image_exists_alone", {}).get("median")
    out += ["", f"trainyard / podman at p90: {c['ratio']['p90']:.2f}×. trainyard's own "
            f"timestamps (p50): createTime → startTime {ms(t['queue']['median'])} ms (queued, "
            "placed)"]
    if "image_check" in t:
        out[-1] += (f"; → \"Using the local image\" {ms(t['image_check']['median'])} ms (`podman "
                    f"image exists`, {ms(exists)} ms when run alone); → \"Started 1 replica.\" "
                    f"{ms(t['launch']['median'])} ms (plan, run record, supervisor); → the first "
                    f"line {ms(t['spawn_to_exec']['median'])} ms (`podman run` and the "
                    "interpreter)")
    out[-1] += "."
    out += [""]
    return out


def logs_section(g, aims):
    out = ["### 5. Logs", ""] + aims_lib.aim_lines(aims, "logs")
    if not g:
        return out + [absent("logs"), ""]
    s = g["summary"]
    out += [f"One replica printing {g['lines']:,} lines of {g['line_bytes']} bytes, "
            f"{runs(g['reps'])}. lines/s from the program's start to every line queryable through "
            "`entries:list` (trainyard), or to the program's exit (the file). Median [min – max].",
            "", "| path | lines/s | seconds | ÷ the file (floor) |", "|---|---:|---:|---:|"]
    floor = s["file"]["rate"]["median"]
    for path, label in (("file", "the same program writing to a file (floor)"),
                        ("trainyard", "trainyard: stdout → records → `entries:list`")):
        x = s[path]
        out.append(f"| {label} | {spread(x['rate'], num)} | "
                   f"{spread(x['seconds'], lambda v: num(v, 2))} | "
                   f"{num(x['rate']['median'] / floor, 2)} |")
    t = s["trainyard"]
    out += ["", f"From the POST (job start included): {spread(t['e2e_rate'], num)} lines/s. "
            f"Reading every line back through `entries:list` in pages of 1,000: "
            f"{spread(t['read_rate'], num)} lines/s.", ""]
    return out


def header(meta, results):
    m = meta["machine_before"]
    mode = meta["mode"]
    lines = [f"## Side by side with the peers (`bench/run{' --quick' if mode == 'quick' else ''}`),"
             f" {meta['date']}", "",
             f"**Mode**: {mode} ({meta['mode_note']}). **Machine**: {m['cpus']} CPUs "
             f"({m['cpu_model']}), {m['memory_gib']} GiB memory, Linux {m['kernel']}; load "
             f"average (1, 5, 15 min) {' '.join(m['loadavg'])} before and "
             f"{' '.join(meta['machine_after']['loadavg'])} after. **Commit**: "
             f"`{meta['commit']}`. **Binary**: `{meta['binary']}` ({meta['build_type']}). The "
             f"run took {meta['took_s'] / 60:.1f} minutes ({meta['build_s']:.0f} s of it "
             "building).", "",
             f"**Peers**, measured in the same run on the same machine: {meta['peers']}.", ""]
    per = [f"{name} {info['took_s']:.0f} s, other processes {info['others']}"
           for name, info in meta.get("scenarios", {}).items()]
    if per:
        lines += ["**Per scenario** (wall time; CPU used by processes this run did not start, "
                  "as a share of the machine): " + "; ".join(per) + ".", ""]
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True)
    parser.add_argument("--meta", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--record", default="")
    parser.add_argument("--plot", default="", help="the plot's path relative to the report")
    args = parser.parse_args()

    meta = json.loads(Path(args.meta).read_text())
    FAILED.update(meta.get("failed", []))
    results = {name: load(args.work, name)
               for name in ("trivial", "distributed", "burst", "logs", "container")}
    rows, _, _ = api_tables(args.work)
    aims = aims_lib.evaluate(results, rows)
    body = header(meta, results)
    body += aims_lib.aims_section(results, aims)
    body += trivial_section(results["trivial"], aims)
    body += distributed_section(results["distributed"])
    body += burst_section(results["burst"], aims)
    body += api_section(args.work, meta, lambda section: aims_lib.aim_lines(aims, section))
    body += logs_section(results["logs"], aims)
    body += ["### 6. Tuning", "",
             meta.get("tuning_note", "See the Tuning section below (`bench/tuning/run.sh`)."), ""]
    body += slurm_backend_section(load(args.work, "slurm_backend"))
    body += container_section(results["container"], aims)
    if args.plot:
        body += [f"![Latency distributions of this run]({args.plot})", ""]
    text = "\n".join(body).rstrip() + "\n"
    Path(args.out).write_text(text)
    if args.record:
        record(Path(args.record), text)


def record(path, text):
    block = f"{BEGIN}\n{text}{END}\n"
    current = path.read_text() if path.is_file() else "# Recorded benchmark results\n"
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        current = head + block + ("\n" + tail if tail else "")
    else:
        # After the title and its first paragraph, before the first section.
        match = re.search(r"^## ", current, flags=re.M)
        at = match.start() if match else len(current)
        current = current[:at] + block + "\n" + current[at:]
    path.write_text(current)


if __name__ == "__main__":
    main()
