import os
import sys

try:
    from harness.cli import main  # (its own imports answer a Ctrl-C the same way: see there)
except KeyboardInterrupt:  # Ctrl-C while the harness loads: nothing was started, nothing to say
    os._exit(130)

status = main()
# Everything is written and every temporary is gone when main() returns: leave without the
# interpreter's teardown (freeing every case, cache and module costs ~50 ms on a large run).
try:
    sys.stdout.flush()  # (main() has handed stdout over already: this finds nothing left, as a rule)
    sys.stderr.flush()
except BrokenPipeError:  # a reader gone: never 0 for output it did not take (cli._reader_left)
    status = status or 141
except OSError:
    sys.exit(status)  # (the usual shutdown reports it)
os._exit(status)
