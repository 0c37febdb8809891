"""Appends a line to <job-dir>/starts.txt each time it starts. The first start writes its pid to
<job-dir>/pid.json and runs until it is killed; a later start exits 0."""
import os
import time

from trainer import common


def main():
    args = common.parse_args()
    starts = os.path.join(args.job_dir, "starts.txt")
    with open(starts, "a", encoding="utf-8") as out:
        out.write(f"start {os.getpid()}\n")
    with open(starts, encoding="utf-8") as lines:
        count = len(lines.readlines())
    print(f"start number {count}")
    if count > 1:
        return
    common.write_json(os.path.join(args.job_dir, "pid.json"), {"pid": os.getpid()})
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main()
