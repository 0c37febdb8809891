"""A light distributed "training": see trainer/__init__.py."""

import os
import signal
import sys
import time

from trainer.replica import Replica

# How long the primary waits for the other replicas' reports.
PEER_DEADLINE_S = 300


def primary_name(runtime_version):
    """`chief` from runtime version 2.1 on, `master` before.

    docs/reference/ai-platform-training.md §7.2.
    """
    major, minor = (int(part) for part in runtime_version.split(".")[:2])
    return "chief" if (major, minor) >= (2, 1) else "master"


def check(replica):
    """The flags and TF_CONFIG every replica must have been given."""
    job = replica.tf_config["job"]
    if replica.args.epochs < 1:
        replica.fail("--epochs must be positive, got %d" % replica.args.epochs)
    if not os.path.isabs(replica.job_dir) or not os.path.isdir(replica.job_dir):
        replica.fail("--job-dir %r is not a local directory" % replica.job_dir)
    if replica.tf_config.get("environment") != "cloud":
        replica.fail("TF_CONFIG environment is %r" % replica.tf_config.get("environment"))
    uri = job.get("job_dir")
    if not uri or os.environ.get("TRAINYARD_JOB_DIR_URI") != uri:
        replica.fail("TF_CONFIG job_dir %r but TRAINYARD_JOB_DIR_URI %r"
                     % (uri, os.environ.get("TRAINYARD_JOB_DIR_URI")))
    primary = primary_name(job["runtime_version"])
    cluster = replica.tf_config["cluster"]
    if len(cluster.get(primary, [])) != 1:
        replica.fail("TF_CONFIG cluster has no single %r for runtime %s: %s"
                     % (primary, job["runtime_version"], sorted(cluster)))
    if replica.type not in cluster or replica.index >= len(cluster[replica.type]):
        replica.fail("TF_CONFIG task is not a member of its cluster")
    return primary


def peers(replica):
    """The names of every other member of the cluster: "worker-3", "ps-0"."""
    names = []
    for role, addresses in replica.tf_config["cluster"].items():
        names += ["%s-%d" % (role, i) for i in range(len(addresses))]
    return [name for name in names if name != replica.name]


def lead(replica):
    """Waits for every peer's report, then writes one file per epoch."""
    missing = peers(replica)
    deadline = time.monotonic() + PEER_DEADLINE_S
    while missing:
        missing = [name for name in missing
                   if not os.path.exists(replica.path("reports", name + ".json"))]
        if missing and time.monotonic() > deadline:
            replica.fail("no report from %s after %d s" % (", ".join(missing), PEER_DEADLINE_S))
        time.sleep(0.05)
    for epoch in range(1, replica.args.epochs + 1):
        replica.write("model/epoch-%d.txt" % epoch, "epoch %d of %d\n"
                      % (epoch, replica.args.epochs))


def note_stop(replica):
    """From now on SIGTERM writes reports/<name>.stopped, then ends the process with status 0."""
    def stop(signum, frame):
        del frame  # the signal module's signature
        replica.write(os.path.join("reports", replica.name + ".stopped"), "signal %d\n" % signum)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)


def main():
    replica = Replica()
    primary = check(replica)
    if replica.type == "ps":
        note_stop(replica)  # before the report: the primary may end as soon as it sees it
    replica.report()
    if replica.type == primary:
        lead(replica)
    elif replica.type == "ps":
        while True:  # a parameter server serves until it is stopped
            signal.pause()


if __name__ == "__main__":
    main()
