"""``python3 -m mo ARGS``: the `mo` command (same flags, output, files and exit codes)."""
import sys

from . import _mo
from ._errors import ConversionError


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        code, out = _mo.mo_command(args)
    except ValueError as e:  # a bad command line
        print(f"[ ERROR ] {e}\n[ ERROR ] run 'mo --help' for the list of flags", file=sys.stderr)
        return 2
    except ConversionError as e:
        print(f"[ ERROR ] {e}", file=sys.stderr)
        return 1
    except MemoryError:
        print("[ ERROR ] out of memory", file=sys.stderr)
        return 1
    except RuntimeError as e:  # an internal error: its message says so
        print(f"[ ERROR ] {e}", file=sys.stderr)
        return 3
    sys.stdout.write(out)
    return code


if __name__ == "__main__":
    _mo.remove_staged_files_on_signals()
    sys.exit(main())
