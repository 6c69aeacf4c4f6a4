"""Checks that the code and output a Markdown document shows are real.

    check_excerpts.py DOC ROOT [--output NAME=FILE]...

A fenced block right after an HTML comment marker is checked:

    <!-- excerpt: examples/tutorial/TutorialPasses.cpp -->
    ```cpp
    ...
    ```

must appear verbatim, as consecutive lines, in ROOT/examples/tutorial/
TutorialPasses.cpp, and

    <!-- output: tutorial.py -->
    ```text
    ...
    ```

must appear verbatim, as consecutive lines, in the FILE given by
`--output tutorial.py=FILE`. Trailing whitespace is ignored, and in outputs
leading whitespace too (an output may be shown dedented). Every ```cpp and
```python block must be an excerpt, or be marked `<!-- not-checked: why -->`
so that unchecked code is a visible decision. Prints one line per checked
block (for a mismatch, the first line that differs) and a summary, and exits
non-zero if any block does not match.
"""

import argparse
import os
import re
import sys

MARKER = re.compile(r"^<!--\s*(excerpt|output|not-checked):\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^```(\w*)\s*$")
CODE_LANGUAGES = ("cpp", "python")


def blocks(lines):
    """Yields (line number, marker kind, marker argument, language, body
    lines) for each fenced block; the marker is the line right before the
    fence, or (None, None)."""
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start = i
        marker = MARKER.match(lines[i - 1]) if i > 0 else None
        i += 1
        body = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"line {start + 1}: unterminated code block")
        i += 1
        kind, argument = (marker.group(1), marker.group(2)) if marker else (
            None, None)
        yield start + 1, kind, argument, fence.group(1), body


def find(body, text_lines, strip):
    """None if `body` occurs in `text_lines` as consecutive lines (compared
    after `strip`), else the (index in body, line) of the first line that
    differs in the longest partial match."""
    body = [strip(line) for line in body]
    text = [strip(line) for line in text_lines]
    best = (0, body[0] if body else "")
    for start in range(len(text)):
        n = 0
        while (n < len(body) and start + n < len(text)
               and text[start + n] == body[n]):
            n += 1
        if n == len(body):
            return None
        if n > best[0]:
            best = (n, body[n])
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("doc")
    parser.add_argument("root")
    parser.add_argument("--output", action="append", default=[],
                        metavar="NAME=FILE")
    options = parser.parse_args()
    outputs = dict(entry.split("=", 1) for entry in options.output)
    with open(options.doc) as f:
        lines = f.read().splitlines()
    name = os.path.relpath(options.doc, options.root)

    errors = checked = 0
    for line, kind, argument, language, body in blocks(lines):
        where = f"{name}:{line}"
        if kind == "excerpt":
            path = os.path.join(options.root, argument)
        elif kind == "output":
            if argument not in outputs:
                print(f"{where}: error: no --output {argument}=FILE to check "
                      f"this block against")
                errors += 1
                continue
            path = outputs[argument]
        else:
            if language in CODE_LANGUAGES and kind != "not-checked":
                print(f"{where}: error: a ```{language} block without "
                      f"<!-- excerpt: FILE --> (or <!-- not-checked: why -->)")
                errors += 1
            continue
        try:
            with open(path) as f:
                source = f.read().splitlines()
        except OSError as error:
            print(f"{where}: error: cannot read {argument}: {error}")
            errors += 1
            continue
        if not body:
            print(f"{where}: error: an empty {kind} block")
            errors += 1
            continue
        # Code keeps its indentation; an output may be shown dedented.
        strip = str.rstrip if kind == "excerpt" else str.strip
        mismatch = find(body, source, strip)
        if mismatch is None:
            print(f"{where}: {kind} of {argument}: ok ({len(body)} lines)")
            checked += 1
            continue
        index, text = mismatch
        print(f"{where}: error: this {kind} is not in {argument}; line "
              f"{line + 1 + index} differs: {text!r}")
        errors += 1

    print(f"{name}: {checked} blocks match, {errors} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
