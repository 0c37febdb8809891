"""A trainer that never ends by itself: its report, then it waits (SIGTERM ends it)."""

import signal

from trainer.replica import Replica


def main():
    Replica().report()
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
