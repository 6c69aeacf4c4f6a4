#!/usr/bin/env python3
"""Writes a fuzz-torchscript input (a list of records: name, size, bytes;
see fuzz_torchscript.cpp) as the TorchScript archive the target imports,
to reproduce a finding with `fx-translate --import-torchscript`:

    fuzz/records_to_pt.py INPUT OUTPUT.pt
"""
import sys
import zipfile


def records(data):
    while data:
        name, _, rest = data.partition(b"\n")
        size, _, body = rest.partition(b"\n")
        try:
            n = int(size)
        except ValueError:
            n = len(body)
        n = min(max(n, 0), len(body))
        yield name.decode("latin-1"), body[:n]
        data = body[n:]


def main(source, target):
    seen = set()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as out:
        for name, payload in records(open(source, "rb").read()):
            if not name or name in ("version", ".data/version") or name in seen:
                continue
            seen.add(name)
            out.writestr("archive/" + name, payload)
        out.writestr("archive/version", "3\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
