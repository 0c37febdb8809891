"""The aims of bench/resources (issue #31) judged against a run's figures, and its tables.

Each aim is met, not met, or grossly broken (the run then exits 1): a body byte on disk, an
unauthenticated body answered other than 401, unauthenticated memory growth over half the
peer's, a legitimate request failed or its p99 over 50× the quiet one, a revoked watch left open
(or the unrevoked one closed), 100,000 labels not refused or refused after more than 10 s.
"""


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


def ms3(f):
    """p50 / p99 / max of a summary, ms."""
    return f"{f.get('median', 0):.2f} / {f.get('p99', 0):.2f} / {f.get('max', 0):.1f}"


def judge(results):
    """[(aim, this run, met, grossly broken)]."""
    rows = []
    refused, peer = results["bodies"]["refused"], results["bodies"]["peer"]
    on_disk, spool = refused["files_holding_body_bytes"], refused["spool_peak_bytes"]
    rows.append(("unauthenticated bodies: 0 body bytes on disk (spool, buckets, any file)",
                 f"{len(on_disk)} files hold body bytes, spool peak {spool} B",
                 not on_disk and spool == 0, bool(on_disk) or spool > 0))
    answers = refused["answers"]
    wrong = {k: v for k, v in answers.items() if k not in ("401", "None")}
    rows.append(("every unauthenticated body answered 401",
                 ", ".join(f"{v} × {k}" for k, v in sorted(answers.items())),
                 answers.get("401", 0) == refused["clients"], bool(wrong)))
    ratio = refused["rss_growth_kib"] / max(1, peer["rss_growth_kib"])
    rows.append(("unauthenticated memory growth ≤ 5 % of the authenticated peer's",
                 f"{mib(refused['rss_growth_kib'])} vs {mib(peer['rss_growth_kib'])} ({ratio:.1%})",
                 ratio <= 0.05, ratio > 0.5))
    phases = results["flood"]["phases"]
    for phase in phases[1:-1]:
        for mode in ("keepalive", "fresh"):
            figures, quiet = phase[mode], phases[0][mode]
            multiple = (figures.get("p99") or 0) / max(1e-9, quiet.get("p99") or 1e-9)
            rows.append((f"legit p99 ≤ 5× quiet and no errors: {phase['name']}, {mode}",
                         f"p99 {figures.get('p99', 0):.2f} ms ({multiple:.1f}×), "
                         f"{figures['errors']} errors",
                         multiple <= 5 and figures["errors"] == 0,
                         figures["errors"] > 0 or multiple > 50))
    watch = results["watch"]
    all_closed = watch["closed"] == len(watch["runs"])
    rows.append(("a revoked watch closed within 5 s (it re-checks every 2 s)",
                 f"{watch['closed']}/{len(watch['runs'])} closed, max {watch['max_s'] or 0:.2f} s, "
                 f"median {watch['median_s'] or 0:.2f} s; "
                 f"unrevoked still open: {watch['control_still_open']}",
                 all_closed and (watch["max_s"] or 0) <= 5 and watch["control_still_open"],
                 not all_closed or not watch["control_still_open"]))
    for api in ("vertex", "ml_v1"):
        figures = results["labels"][api]
        refused_all = set(figures["answers"]) == {400}
        rows.append((f"100,000 labels refused in < 1 s ({api})",
                     f"max {figures['max_s'] * 1000:.0f} ms, answers {figures['answers']}",
                     figures["max_s"] < 1 and refused_all,
                     figures["max_s"] > 10 or not refused_all))
    return rows


def show(results, rows):
    """Prints the figures and the aims as Markdown tables."""
    refused, peer = results["bodies"]["refused"], results["bodies"]["peer"]
    print(f"\n1. 10 MB bodies, {refused['clients']} clients ({refused['uploads']} to the upload "
          "path)")
    print("| | RSS before | peak | after | data dir growth | spool peak | "
          "body bytes sent (median, max) | answers | /healthz meanwhile p99 / max, errors |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for name, f in (("no or bad token", refused), ("valid token (peer)", peer)):
        h = f["healthz_meanwhile_ms"]
        print(f"| {name} | {mib(f['rss_before_kib'])} | {mib(f['rss_peak_kib'])} | "
              f"{mib(f['rss_after_kib'])} | {f['data_dir_growth_bytes']:,} B | "
              f"{f['spool_peak_bytes']:,} B | {f['body_bytes_sent_median']:,}, "
              f"{f['body_bytes_sent_max']:,} | {f['answers']} | "
              f"{h.get('p99', 0):.2f} / {h.get('max', 0):.1f} ms, {h['errors']} |")
    echo = results["bodies"]["echo"]
    print(f"a 10 MB label value with a valid token: answered {echo['answer']} with "
          f"{echo['answer_bytes']:,} bytes in {echo['seconds']:.2f} s")
    print(f"\n2. legitimate GET at {results['flood']['rate_per_s']}/s beside floods (ms)")
    print("| flood | keep-alive p50 / p99 / max | errors | new connection p50 / p99 / max | errors "
          "| flood: connections made, closed by server, 503s | server sockets median, max |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for phase in results["flood"]["phases"]:
        k, f, flood = phase["keepalive"], phase["fresh"], phase.get("flood", {})
        print(f"| {phase['name']} | {ms3(k)} | {k['errors']} | {ms3(f)} | {f['errors']} | "
              f"{flood.get('connected', '-')}, {flood.get('closed_by_server', '-')}, "
              f"{flood.get('answered_503', '-')} | {flood.get('server_sockets_median', '-')}, "
              f"{flood.get('server_sockets_max', '-')} |")
    closed = [r["closed_after_revoked_s"] for r in results["watch"]["runs"]]
    print("\n3. revoked watch: closed after revoke (s):",
          ", ".join("open" if c is None else f"{c:.2f}" for c in closed))
    labels = results["labels"]
    print(f"\n4. 100,000 labels: Vertex {[round(x, 3) for x in labels['vertex']['seconds']]} s, "
          f"ml v1 {[round(x, 3) for x in labels['ml_v1']['seconds']]} s; /healthz quiet p99 "
          f"{labels['healthz_quiet'].get('p99', 0):.2f} ms, with two in flight "
          f"{ms3(labels['healthz_during'])} ms")
    print("\n| aim | this run | |\n|---|---|---|")
    for aim, value, met, gross in rows:
        verdict = "met" if met else ("**grossly broken**" if gross else "**not met**")
        print(f"| {aim} | {value} | {verdict} |")
