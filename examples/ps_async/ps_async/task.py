"""Entry point: `python3 -m ps_async.task --job-dir DIR [flags]` on every replica.

TF_CONFIG decides the part: the master coordinates (ps_async.master), workers train
(ps_async.worker), parameter servers hold the weights (ps_async.server), evaluators follow the
checkpoints (ps_async.evaluator). Every replica gets the same flags. SIGTERM (what trainyard sends
the replicas still running when the master has finished) makes any replica exit 0.
"""

import argparse
import logging
import signal
import sys

from ps_async import cluster as cluster_lib, evaluator, master, server, worker

ROLES = {"master": master.run, "worker": worker.run, "ps": server.run,
         "evaluator": evaluator.run}


def parse_args(argv=None):
    """The trainer's flags."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job-dir", required=True, help="checkpoints, model and metrics go here")
    parser.add_argument("--train-steps", type=int, default=600,
                        help="global steps (pushes applied by parameter server 0) to train for")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=0.5,
                        help="SGD step the parameter servers apply to each pushed gradient")
    parser.add_argument("--checkpoint-every", type=int, default=100, help="global steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log-every", type=int, default=100, help="pushes between worker logs")
    parser.add_argument("--connect-timeout", type=float, default=120,
                        help="seconds to keep retrying to reach a parameter server")
    parser.add_argument("--wait-timeout", type=float, default=120,
                        help="seconds the master waits for the workers' BYE and the evaluators")
    parser.add_argument("--evaluator-timeout", type=float, default=600,
                        help="seconds an evaluator waits for a new checkpoint")
    return parser.parse_args(argv)


def _stop_on_sigterm(name):
    def handler(signum, frame):  # noqa: ARG001 (signal handler signature)
        logging.getLogger(__name__).info("%s: SIGTERM; exiting", name)
        sys.exit(0)

    signal.signal(signal.SIGTERM, handler)


def main(argv=None):
    """Runs this replica's part; returns its exit status."""
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(message)s")
    cluster = cluster_lib.from_environment()
    _stop_on_sigterm(cluster.name)
    run = ROLES.get(cluster.role)
    if run is None:
        logging.error("%s: unknown task type %r in TF_CONFIG", cluster.name, cluster.role)
        return 2
    status = run(cluster, args)
    # This replica's part is done. A SIGTERM now (trainyard stops the replicas still running
    # when the master has exited) would find Python's handlers already taken down while the
    # interpreter finalizes, and the replica would end "killed by SIGTERM" instead of exiting.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return status


if __name__ == "__main__":
    sys.exit(main())
