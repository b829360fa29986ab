#!/usr/bin/env python3
"""Convert Weka example ARFF files to CSV + a levels file, for the rpart anchors.

Standard library only.  For each ARFF file NAME.arff this writes
  data/NAME.csv         header = attribute names; values copied verbatim from the
                        ARFF text (quotes removed, surrounding blanks stripped);
                        a missing value ('?', quoted or not) becomes an EMPTY cell.
  data/NAME.levels.csv  column,position,level : every nominal attribute's values in
                        DECLARATION order (1-based position), including values that
                        never occur in the data.  Numeric attributes have no rows.
Numbers are not reformatted, so R and Python parse the very same decimal strings.
"""
import csv
import os
import sys

SRC = "/work/main/tests/data/arff"
NAMES = ["breast-cancer", "vote", "labor", "credit-g", "soybean"]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def split_outside_quotes(text):
    """Split on commas outside single/double quotes; return stripped, unquoted tokens
    as (value, was_quoted)."""
    out, cur, quote, i, quoted = [], [], None, 0, False
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < len(text):
                cur.append(text[i + 1]); i += 2; continue
            if ch == quote:
                quote = None
            else:
                cur.append(ch)
        elif ch in "'\"":
            quote, quoted = ch, True
        elif ch == ",":
            out.append(("".join(cur).strip(), quoted)); cur, quoted = [], False
        else:
            cur.append(ch)
        i += 1
    if quote:
        raise ValueError("unterminated quote in: " + text)
    out.append(("".join(cur).strip(), quoted))
    return out


def strip_comment(line):
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "%":
            return line[:i]
    return line


def parse_arff(path):
    attrs, rows, in_data = [], [], False
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            line = strip_comment(raw).strip()
            if not line:
                continue
            if not in_data:
                low = line.lower()
                if low.startswith("@relation"):
                    continue
                if low.startswith("@data"):
                    in_data = True
                    continue
                if low.startswith("@attribute"):
                    rest = line[len("@attribute"):].strip()
                    if rest[0] in "'\"":
                        q = rest[0]
                        end = rest.index(q, 1)
                        name, rest = rest[1:end], rest[end + 1:].strip()
                    else:
                        name, rest = rest.split(None, 1)
                    if rest.startswith("{"):
                        body = rest[1:rest.rindex("}")]
                        levels = [v for v, _ in split_outside_quotes(body)]
                        attrs.append((name, "nominal", levels))
                    elif rest.lower().split()[0] in ("numeric", "real", "integer"):
                        attrs.append((name, "numeric", None))
                    else:
                        raise ValueError("unsupported attribute type: " + line)
                continue
            vals = split_outside_quotes(line)
            if len(vals) != len(attrs):
                raise ValueError("row has %d values, expected %d: %s" % (len(vals), len(attrs), line))
            row = []
            for (name, kind, levels), (v, _q) in zip(attrs, vals):
                if v == "?":
                    row.append("")
                    continue
                if kind == "nominal" and v not in levels:
                    raise ValueError("value %r not declared for %s" % (v, name))
                if kind == "numeric":
                    float(v)  # must parse
                row.append(v)
            rows.append(row)
    return attrs, rows


def main(names):
    os.makedirs(OUT, exist_ok=True)
    for name in names:
        attrs, rows = parse_arff(os.path.join(SRC, name + ".arff"))
        with open(os.path.join(OUT, name + ".csv"), "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
            w.writerow([a[0] for a in attrs])
            w.writerows(rows)
        with open(os.path.join(OUT, name + ".levels.csv"), "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
            w.writerow(["column", "position", "level"])
            for a, kind, levels in attrs:
                if kind == "nominal":
                    for i, lev in enumerate(levels, 1):
                        w.writerow([a, i, lev])
        nmiss = sum(1 for r in rows for v in r if v == "")
        print("%-14s rows=%4d cols=%2d missing cells=%d" % (name, len(rows), len(attrs), nmiss))


if __name__ == "__main__":
    main(sys.argv[1:] or NAMES)
