"""The core vocabulary every other layer speaks: errors (bad input and where), files (reading
and writing them whole), command lines (the tools' argv, lit's RUN-line syntax) and verdict
codes with the parsers of tool output that decide them. It imports nothing of the harness."""
