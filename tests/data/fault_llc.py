"""An llc for fault injection: the real llc, with regular-expression substitutions made to what it
writes: in its text, in its object, or in both (an object is then llvm-mc's of the changed text).

    python fault_llc.py REAL_BIN MODE SUBSTITUTIONS.json LLC-ARGS...

MODE is text, object or both; the JSON file holds [[pattern, replacement], ...]. tests/test_meaning.py
installs it as `llc` in a build directory whose other tools are links to the real ones.
"""

import json
import re
import subprocess
import sys


def main(real: str, mode: str, subs_file: str, args: list[str]) -> int:
    if any(a in ("--version", "-version") or "help" in a for a in args):
        return subprocess.call([f"{real}/llc", *args])
    obj = "-filetype=obj" in args
    if mode == ("text" if obj else "object"):  # this output stays as llc writes it
        return subprocess.call([f"{real}/llc", *args])
    out = None
    if "-o" in args:
        at = args.index("-o")
        out, args = args[at + 1], args[:at] + args[at + 2 :]
    text_args = [a for a in args if a != "-filetype=obj"]
    gen = subprocess.run([f"{real}/llc", *text_args], stdin=sys.stdin, capture_output=True, text=True)
    sys.stderr.write(gen.stderr)
    if gen.returncode != 0:
        return gen.returncode
    text = gen.stdout
    with open(subs_file) as f:
        for pattern, replacement in json.load(f):
            text = re.sub(pattern, replacement, text)
    if obj:
        features = [a for a in args if a.startswith(("-mcpu=", "-mattr="))]
        mc = [f"{real}/llvm-mc", "-triple=amdgcn", *features, "-filetype=obj", "-o", out or "-"]
        done = subprocess.run(mc, input=text.encode(), capture_output=True)
        sys.stdout.buffer.write(done.stdout)
        sys.stderr.write(done.stderr.decode())
        return done.returncode
    if out and out != "-":
        with open(out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]))
