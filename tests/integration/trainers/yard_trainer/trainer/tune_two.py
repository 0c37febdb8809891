"""A trial of a two-metric study: reports --x as `acc` and (x - 2)^2 as `loss` through trainyard's
hypertune module (one report per metric, as cloudml-hypertune trainers do), each at steps 1 and 2
(the last step's value is the final one), and exits 0. With --x equal to --no-loss-at it reports
`acc` only.
"""
import argparse

import hypertune


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--x", type=float, default=0)
    parser.add_argument("--no-loss-at", type=float, default=None)
    args, _ = parser.parse_known_args()
    reporter = hypertune.HyperTune()
    for step in (1, 2):
        scale = step / 2  # step 1 reports half the final values
        reporter.report_hyperparameter_tuning_metric(
            hyperparameter_metric_tag="acc", metric_value=args.x * scale, global_step=step)
        if args.no_loss_at is None or args.x != args.no_loss_at:
            reporter.report_hyperparameter_tuning_metric(
                hyperparameter_metric_tag="loss", metric_value=(args.x - 2) ** 2 * scale,
                global_step=step)
    print("trial x %s" % args.x)


if __name__ == "__main__":
    main()
