"""``quercus predict --keep COL...``: identifying columns copied, as the file wrote them,
before the predictions; through the installed command, on files written as R, Excel and
Weka write them."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import quercus

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"
COMMAND = Path(sys.executable).parent / "quercus"

# iris rows as R's write.csv writes a data frame with an id and a free-text column
# (every string quoted, NA for a missing string), with numbers the model reads
NEW_ROWS = '''\
"id","name","sepal_length","sepal_width","petal_length","petal_width","note","species"
"007","Smith, J.",5.1,3.5,1.4,0.2,NA,"setosa"
"010","O""Brien",6.70,3.1,4.7,1.5,"first, second","versicolor"
"0x1F","  spaced",6.3,3.3,6.0,2.5,"","virginica"
"1e3","",5.8,2.7,5.1,1.9,"1.50","virginica"
'''
WEATHER = """\
@relation weather
@attribute outlook {sunny, overcast, rainy}
@attribute temperature numeric
@attribute windy {TRUE, FALSE}
@attribute play {yes, no}
@data
sunny,85,FALSE,no
'overcast',83,?,yes
rainy,70.50,FALSE,yes
rainy,65,TRUE,no
overcast,64,TRUE,yes
sunny,69,FALSE,yes
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    if not COMMAND.exists():
        pytest.skip(f"the quercus command is not installed next to {sys.executable}")
    directory = tmp_path_factory.mktemp("keep")
    shutil.copy(BUNDLED / "iris.csv", directory / "iris.csv")
    (directory / "new.csv").write_text(NEW_ROWS)
    (directory / "weather.arff").write_text(WEATHER)
    ok(run("train", "iris.csv", "--target", "species", "--algorithm", "cart", "--out",
           "iris.json", cwd=directory))
    ok(run("train", "weather.arff", "--target", "play", "--algorithm", "c45",
           "--out", "weather.json", cwd=directory))
    return directory


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(COMMAND), *args], cwd=cwd, capture_output=True, text=True,
                          check=False)


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def file_rows(path: Path) -> list[list[str]]:
    """The input file as the csv module reads it (leading blanks skipped, as the reader)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return list(csv.reader(handle, skipinitialspace=True))


def test_kept_columns_come_first_as_written(work):
    plain = rows_of(ok(run("predict", "iris.json", "new.csv", cwd=work)))
    kept = rows_of(ok(run("predict", "iris.json", "new.csv", "--keep", "id", "name",
                          cwd=work)))
    assert kept[0] == ["id", "name", "prediction"]
    assert [row[:2] for row in kept[1:]] == [["007", "Smith, J."], ["010", 'O"Brien'],
                                             ["0x1F", "  spaced"], ["1e3", ""]]
    assert [row[2] for row in kept] == [row[0] for row in plain]
    assert [row[2] for row in kept[1:]] == ["setosa", "versicolor", "virginica", "virginica"]
    swapped = rows_of(ok(run("predict", "iris.json", "new.csv", "--keep", "note", "id",
                             cwd=work)))
    assert [row[:2] for row in swapped] == [["note", "id"], ["NA", "007"],
                                            ["first, second", "010"], ["", "0x1F"],
                                            ["1.50", "1e3"]]


def test_keep_all_with_proba_and_out(work):
    out = ok(run("predict", "iris.json", "new.csv", "--keep", "all", "--proba", "--out",
                 "all.csv", cwd=work))
    assert out == "4 predictions written to all.csv\n"
    written = rows_of((work / "all.csv").read_text())
    source = file_rows(work / "new.csv")
    header = source[0]
    assert written[0] == [*header, "prediction", "proba_setosa", "proba_versicolor",
                          "proba_virginica"]
    assert [row[:len(header)] for row in written[1:]] == source[1:]
    assert [row[2] for row in written[1:3]] == ["5.1", "6.70"]  # a feature's text, too
    assert [row[len(header)] for row in written[1:]] == [row[-1] for row in source[1:]]
    assert all(float(row[len(header) + 1 + ["setosa", "versicolor", "virginica"].index(
        row[len(header)])]) == 1.0 for row in written[1:])  # a full tree fits iris


def test_excel_file_with_bom_and_semicolons(work):
    text = "\ufeff" + NEW_ROWS.replace(",", ";").replace('"Smith; J."', '"Smith, J."')
    (work / "excel.csv").write_text(text.replace('"first; second"', '"first, second"'),
                                    encoding="utf-8")
    kept = rows_of(ok(run("predict", "iris.json", "excel.csv", "--keep", "id", "name",
                          cwd=work)))
    assert kept[0] == ["id", "name", "prediction"]
    assert [row[:2] for row in kept[1:3]] == [["007", "Smith, J."], ["010", 'O"Brien']]


def test_arff_values_are_unquoted_and_missing_is_empty(work):
    kept = rows_of(ok(run("predict", "weather.json", "weather.arff", "--keep", "outlook",
                          "windy", "temperature", cwd=work)))
    assert kept[0] == ["outlook", "windy", "temperature", "prediction"]
    assert [row[:3] for row in kept[1:4]] == [["sunny", "FALSE", "85"],
                                              ["overcast", "", "83"],
                                              ["rainy", "FALSE", "70.50"]]


@pytest.mark.parametrize(("keep", "message"), [
    (["id", "idd"], "new.csv: no column 'idd' to keep; columns are: id, name, sepal_length"),
    (["ID", "Name"], "no columns 'ID', 'Name' to keep"),
    (["all", "id"], "new.csv: --keep all copies every column; give it alone"),
])
def test_unknown_column_is_one_line_and_writes_nothing(work, keep, message):
    result = run("predict", "iris.json", "new.csv", "--keep", *keep, "--out", "none.csv",
                 cwd=work)
    assert result.returncode == 2
    assert result.stderr.startswith("quercus: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""
    assert not (work / "none.csv").exists()


def test_kept_column_named_like_a_prediction_column(work):
    (work / "again.csv").write_text(NEW_ROWS.replace('"note"', '"prediction"'))
    result = run("predict", "iris.json", "again.csv", "--keep", "all", cwd=work)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("quercus: error: again.csv: kept column 'prediction' has the name "
                             "of a prediction column; rename it in the file or leave it out "
                             "of --keep\n")
    kept = rows_of(ok(run("predict", "iris.json", "again.csv", "--keep", "id", cwd=work)))
    assert kept[0] == ["id", "prediction"]


def test_explain_names_rows_by_kept_values(work):
    text = ok(run("predict", "iris.json", "new.csv", "--explain", "--keep", "id", "name",
                  cwd=work))
    heads = [line for line in text.splitlines() if line.startswith("Row ")]
    assert heads[0].startswith("Row 1 [id=007, name=Smith, J.]: species = setosa")
    assert heads[3].startswith("Row 4 [id=1e3, name=]: species = virginica")
    plain = ok(run("predict", "iris.json", "new.csv", "--explain", cwd=work))
    assert text.replace(" [id=007, name=Smith, J.]", "").count("\n") == plain.count("\n")
    records = json.loads(ok(run("predict", "iris.json", "new.csv", "--explain", "--format",
                                "json", "--keep", "id", cwd=work)))
    assert [r["kept"] for r in records] == [{"id": "007"}, {"id": "010"}, {"id": "0x1F"},
                                            {"id": "1e3"}]
    assert [r["prediction"] for r in records] == ["setosa", "versicolor", "virginica",
                                                  "virginica"]


def test_compressed_csv_and_parquet_keep_the_same_text(work):
    """--keep reads every format the readers read: gzip CSV gives the plain file's text;
    Parquet gives each value's text (strings as stored)."""
    import gzip

    plain = ok(run("predict", "iris.json", "new.csv", "--keep", "id", "name", cwd=work))
    (work / "new.csv.gz").write_bytes(gzip.compress((work / "new.csv").read_bytes()))
    assert ok(run("predict", "iris.json", "new.csv.gz", "--keep", "id", "name",
                  cwd=work)) == plain
    pytest.importorskip("pyarrow")
    import pandas as pd

    frame = pd.read_csv(work / "new.csv", dtype={"id": str, "name": str},
                        keep_default_na=False)
    frame.to_parquet(work / "new.parquet")
    kept = rows_of(ok(run("predict", "iris.json", "new.parquet", "--keep", "id", cwd=work)))
    assert [row[0] for row in kept] == ["id", "007", "010", "0x1F", "1e3"]
    assert [row[1] for row in kept] == [row[2] for row in rows_of(plain)]
