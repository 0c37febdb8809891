"""The smallest trainer: prints a line and writes model.txt into --job-dir."""
import os

from trainer import common


def main():
    args = common.parse_args()
    print("hello from the trainer")
    with open(os.path.join(args.job_dir, "model.txt"), "w", encoding="utf-8") as out:
        out.write("weights\n")


if __name__ == "__main__":
    main()
