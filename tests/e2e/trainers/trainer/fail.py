"""A trainer that fails: its report, then an exception (exit status 1, traceback on stderr)."""

from trainer.replica import Replica

MESSAGE = "trainer.fail always fails after its report"


def main():
    replica = Replica()
    replica.report()
    raise RuntimeError(MESSAGE)


if __name__ == "__main__":
    main()
