"""``python -m rhineland``: the ``rhineland`` command."""

from rhineland.cli.main import main

if __name__ == "__main__":
    main()
