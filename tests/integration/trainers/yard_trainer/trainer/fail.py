"""A trainer that fails as a buggy one does: an uncaught exception (exit status 1)."""


def main():
    raise ValueError("boom")


if __name__ == "__main__":
    main()
