"""Reading real data (issue 11): missing-value tokens, --numeric, type warnings, inspect,
rows without a class, Parquet and compressed CSV, and files written by R, Excel and pandas.

Reference counts come from R (``sum(is.na(...))``, ``table(...)`` on the same data) or from
the fixture files as written; see tests/data/reading/README.md.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DecisionTreeClassifier, cli, datasets
from quercus.data import MISSING_STRINGS, read_arff, read_csv, read_data
from quercus.data.csv_stream import read_csv_binned
from quercus.errors import DataError
from quercus.evaluation import cross_validate
from quercus.export import load_model

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"
FIXTURES = Path(__file__).parent / "data" / "reading"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def kinds(schema) -> dict[str, str]:
    return {f.name: f.kind for f in schema.features}


def quiet_read(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return read_csv(*args, **kw)


# -- 1. missing-value tokens ---------------------------------------------------------------
def test_default_tokens_are_pandas_set_plus_question_mark() -> None:
    from pandas._libs.parsers import STR_NA_VALUES

    assert set(MISSING_STRINGS) == set(STR_NA_VALUES) | {"?"}
    assert len(MISSING_STRINGS) == len(set(MISSING_STRINGS))


@pytest.mark.parametrize("token", [t for t in MISSING_STRINGS if t])
def test_every_token_is_missing_in_numeric_categorical_and_target(tmp_path, token) -> None:
    path = write(tmp_path / "t.csv", f"x,c,y\n1.5,a,p\n{token},{token},q\n3,b,{token}\n4,a,p\n")
    X, y, schema = read_csv(path, "y")
    assert kinds(schema) == {"x": "numeric", "c": "categorical"}
    assert X["x"].isna().tolist() == [False, True, False, False]
    assert X["c"].isna().tolist() == [False, True, False, False]
    assert schema.feature("c").codebook.values == ("a", "b")
    assert y.isna().tolist() == [False, False, True, False]
    assert schema.classes.values == ("p", "q")
    arff = write(tmp_path / "t.arff", "@relation r\n@attribute x numeric\n@attribute c {a, b}\n"
                 f"@attribute y {{p, q}}\n@data\n1.5,a,p\n{token},{token},q\n3,b,{token}\n")
    X, y, _ = read_arff(arff)
    assert X["x"].isna().tolist() == [False, True, False]
    assert X["c"].isna().tolist() == [False, True, False]
    assert y.isna().tolist() == [False, False, True]


def test_tokens_in_dataframes_given_to_fit_and_predict() -> None:
    X = pd.DataFrame({"c": ["a", "NA", "b", "N/A", "a", "b"], "x": [1, "NA", 2.5, 3, "", 4]})
    y = pd.Series(["p", "q", "p", "NA", "q", "p"])
    model = DecisionTreeClassifier().fit(X, y)
    assert model.schema_.feature("c").codebook.values == ("a", "b")
    assert model.schema_.feature("x").kind == "numeric"
    assert list(model.classes_) == ["p", "q"]
    np.testing.assert_array_equal(model.schema_.encode(X)[:, 0], [0, np.nan, 1, np.nan, 0, 1])
    assert len(model.predict(pd.DataFrame({"c": ["NULL"], "x": ["nan"]}))) == 1
    np.testing.assert_array_equal(model.schema_.encode(X)[:, 1], [1, np.nan, 2.5, 3, np.nan, 4])


def test_na_values_add_and_keep_na_keeps(tmp_path) -> None:
    path = write(tmp_path / "t.csv", "age,grade,y\n30,NA,a\nunknown,B,b\n40,NA,a\n35,B,NA\n")
    X, y, schema = read_csv(path, "y", na_values="unknown", keep_na=["NA"])
    assert kinds(schema) == {"age": "numeric", "grade": "categorical"}
    assert X["age"].isna().tolist() == [False, True, False, False]
    assert schema.feature("grade").codebook.values == ("B", "NA")
    assert y.tolist() == ["a", "b", "a", "NA"]
    assert "unknown" in schema.na_tokens and "NA" not in schema.na_tokens
    X, _, _ = read_csv(path, "y", na_values=["unknown"])
    assert X["grade"].isna().tolist() == [True, False, True, False]
    with pytest.raises(DataError, match="keep_na: '\\?' always stands for a missing value"):
        read_csv(path, keep_na=["?"])
    with pytest.raises(DataError, match="na_values: 3 is not a string"):
        read_csv(path, na_values=[3])


def test_keep_na_in_arff(tmp_path) -> None:
    arff = write(tmp_path / "t.arff", "@relation r\n@attribute c {NA, x}\n@attribute y {p, q}\n"
                 "@data\nNA,p\nx,q\nunknown,p\n")
    with pytest.raises(DataError, match="line 7, attribute 'c': 'unknown' is not one of"):
        read_arff(arff, keep_na="NA")  # 'unknown' is not declared
    X, _, schema = read_arff(arff, keep_na="NA", na_values="unknown")
    assert schema.feature("c").codebook.values == ("NA", "x")
    assert X["c"].tolist()[:2] == ["NA", "x"] and pd.isna(X["c"].iloc[2])


def test_default_model_files_do_not_store_tokens(tmp_path) -> None:
    X, y, schema = datasets.load("iris")
    assert schema.na_tokens is None and "na_tokens" not in X.attrs
    model = DecisionTreeClassifier().fit(X, y)
    model.save(tmp_path / "m.json")
    document = json.loads((tmp_path / "m.json").read_text())
    assert "na_tokens" not in document["schema"]


def test_tokens_chosen_at_train_time_apply_at_predict_time(capsys, tmp_path) -> None:
    train = write(tmp_path / "train.csv", "age,colour,y\n" + "".join(
        f"{a},{c},{y}\n" for a, c, y in [(20, "red", "young"), (25, "blue", "young"),
                                          ("unknown", "red", "old"), (60, "blue", "old"),
                                          (70, "red", "old"), (22, "blue", "young")]))
    code, out, err = run(capsys, "train", train, "--target", "y", "--out", tmp_path / "m.json",
                         "--na-values", "unknown")
    assert code == 0 and "Trained on 6 rows" in out and err == ""
    model = load_model(tmp_path / "m.json")
    assert model.schema_.feature("age").kind == "numeric"
    assert "unknown" in json.loads((tmp_path / "m.json").read_text())["schema"]["na_tokens"]
    new = write(tmp_path / "new.csv", "age,colour\nunknown,red\n65,blue\n21,red\n")
    code, out, err = run(capsys, "predict", tmp_path / "m.json", new)
    assert code == 0 and err == ""
    assert out.splitlines()[2:] == ["old", "young"]
    # in Python too: the schema reads new data, and a DataFrame, the same way
    X = pd.DataFrame({"age": ["unknown", "65"], "colour": ["red", "blue"]})
    assert np.isnan(model.schema_.encode(X)[0, 0])
    source = model.to_source()
    assert "'unknown'" in source
    namespace: dict = {}
    exec(compile(source, "tree.py", "exec"), namespace)  # noqa: S102 (our own output)
    assert namespace["predict"](["unknown", "red"]) == model.predict(X.iloc[:1])[0]


def test_old_model_files_load_and_save_the_same_schema_and_tree(tmp_path) -> None:
    """Default tokens add nothing to a file: an old file saved again has the same schema and
    tree, byte for byte; only ``params`` grows by the parameters added since (at their
    defaults), the old ones keeping their values."""
    folder = Path(__file__).parent / "data" / "model_files" / "v1"
    # *_f692692.json were written by an older release, in an older layout: they load only
    files = sorted(p for p in folder.glob("*.json") if not p.name.endswith(".expected.json"))
    assert files
    for path in files:
        model = load_model(path)
        assert model.schema_.na_tokens is None
        if "_f692692" in path.name:
            continue
        model.save(tmp_path / "again.json")
        old = json.loads(path.read_bytes())
        again = json.loads((tmp_path / "again.json").read_bytes())
        old_params, new_params = old.pop("params"), again.pop("params")
        assert {k: new_params[k] for k in old_params} == old_params, path.name
        assert again == old, path.name
        assert "na_tokens" not in again["schema"], path.name


# -- 2. --numeric ------------------------------------------------------------------------------
def test_numeric_names_the_first_offending_token_and_line(capsys, tmp_path) -> None:
    path = write(tmp_path / "t.csv", "age,y\n1,a\n2,b\n\nn.a.,a\n3,b\n")
    with pytest.raises(DataError) as exc:
        read_csv(path, "y", numeric=["age"])
    assert str(exc.value) == f"{path}, line 5, column 'age': 'n.a.' is not a number"
    code, _, err = run(capsys, "train", path, "--target", "y", "--out", tmp_path / "m.json",
                       "--numeric", "age")
    assert code == 2 and err == f"quercus: error: {path}, line 5, column 'age': 'n.a.' is not a number\n"
    assert not (tmp_path / "m.json").exists()
    code, out, _ = run(capsys, "eval", path, "--target", "y", "--cv", "2", "--numeric", "age",
                       "--na-values", "n.a.")
    assert code == 0 and "on 4 rows" in out
    code, out, _ = run(capsys, "inspect", path, "--numeric", "age", "--na-values", "n.a.")
    assert code == 0 and out.splitlines()[2].split()[:3] == ["age", "numeric", "1"]


def test_numeric_on_the_streaming_route(tmp_path) -> None:
    path = write(tmp_path / "t.csv", "age,y\n1,a\n2,b\nn.a.,a\n3,b\n")
    with pytest.raises(DataError, match=r"line 4, column 'age': 'n.a.' is not a number"):
        read_csv_binned(path, "y", numeric=["age"])
    data = read_csv_binned(path, "y", numeric=["age"], na_values=["n.a."])
    assert data.schema.feature("age").kind == "numeric"
    assert "n.a." in data.schema.na_tokens


# -- 3. type warnings --------------------------------------------------------------------------
AGES = "age,city,y\n" + "".join(f"{20 + i},c{i % 3},{'ab'[i % 2]}\n" for i in range(30)) + \
    "unknown,c1,a\nunknown,c2,b\n-,c0,a\n"


def test_mostly_numbers_warns_in_python_and_on_the_command_line(capsys, tmp_path) -> None:
    path = write(tmp_path / "ages.csv", AGES)
    with pytest.warns(UserWarning) as record:
        read_csv(path, "y")
    messages = [str(w.message) for w in record]
    assert len(messages) == 1
    text = messages[0]
    assert text.startswith(f"{path}: column 'age' was read as categorical although 30 of its "
                           "33 values are numbers; the others are 'unknown' (2 rows), '-' (1 row)")
    assert "--na-values unknown '-'" in text and "--numeric age" in text
    for command in ("train", "eval"):
        extra = ["--out", tmp_path / "m.json"] if command == "train" else ["--cv", "3"]
        code, _, err = run(capsys, command, path, "--target", "y", *extra)
        assert code == 0
        assert err.splitlines() == [f"quercus: warning: {text}"]
    code, _, err = run(capsys, "train", path, "--target", "y", "--out", tmp_path / "m.json",
                       "--na-values", "unknown", "-", "--numeric", "age")
    assert code == 0 and err == ""
    assert load_model(tmp_path / "m.json").schema_.feature("age").kind == "numeric"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_csv(path, "y", categorical=["age"])  # the user's choice: no warning


def test_many_distinct_values_warns(capsys, tmp_path) -> None:
    rows = "".join(f"id{i:03d},{i % 4},{'ab'[i % 2]}\n" for i in range(40))
    path = write(tmp_path / "ids.csv", "name,x,y\n" + rows)
    with pytest.warns(UserWarning, match=r"column 'name' is categorical with 40 distinct values "
                                         r"in 40 rows \(e.g. 'id000', 'id001', 'id002'\)"):
        read_csv(path, "y")
    small = write(tmp_path / "small.csv", "name,y\n" + rows[: rows.index("id010")].replace(
        ",0,", ",").replace(",1,", ",").replace(",2,", ",").replace(",3,", ","))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_csv(small, "y")  # fewer than 20 rows: too few to tell


def test_bundled_data_sets_read_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in datasets.names():
            datasets.load(name)


# -- 4. inspect ----------------------------------------------------------------------------
def test_inspect_penguins(capsys) -> None:
    code, out, err = run(capsys, "inspect", BUNDLED / "penguins.csv", "--target", "species")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"{BUNDLED / 'penguins.csv'}: 344 rows, 7 features, target 'species'"
    table = {line.split()[0]: line.split() for line in lines[2:9]}
    # R: colSums(is.na(penguins)); sapply(penguins, function(c) length(unique(na.omit(c))))
    assert table["bill_length_mm"][1:4] == ["numeric", "2", "164"]
    assert table["flipper_length_mm"][1:4] == ["numeric", "2", "55"]
    assert table["sex"][1:4] == ["categorical", "11", "2"]
    assert table["island"][1:4] == ["categorical", "0", "3"]
    assert "Biscoe (168), Dream (124), Torgersen (52)" in lines[2]
    # R: table(penguins$species)
    assert lines[9] == "classes of 'species' (3): Adelie (152), Chinstrap (68), Gentoo (124)"


def test_inspect_says_rows_without_a_class(capsys) -> None:
    code, out, _ = run(capsys, "inspect", BUNDLED / "penguins.csv", "--target", "sex")
    assert code == 0
    assert "classes of 'sex' (2): female (165), male (168)" in out  # R: table(penguins$sex)
    assert "11 rows without a class (missing 'sex'): training leaves them out" in out


# -- 5. rows without a class ---------------------------------------------------------------
def test_rows_without_a_class_are_left_out_and_counted(capsys, tmp_path) -> None:
    path = BUNDLED / "penguins.csv"
    note = (f"quercus: warning: {path}: left out 11 of 344 rows whose target 'sex' is missing; "
            "counts below are of the 333 rows used")
    code, out, err = run(capsys, "train", path, "--target", "sex", "--out", tmp_path / "m.json")
    assert code == 0 and err.splitlines() == [note]
    assert out.startswith("Trained on 333 rows, 7 features, 2 classes")
    code, out, err = run(capsys, "eval", path, "--target", "sex", "--cv", "3")
    assert code == 0 and err.splitlines() == [note]
    assert out.startswith("3-fold cross-validation on 333 rows")
    confusion = [line.split()[1:] for line in out.splitlines()[-2:]]
    assert sum(int(v) for row in confusion for v in row) == 333
    code, out, err = run(capsys, "train", path, "--target", "sex", "--out", tmp_path / "s.json",
                         "--stream", "--splitter", "hist")
    assert code == 0 and err.splitlines() == [note]
    assert out.startswith("Trained on 333 rows, 7 features, 2 classes")


# -- 6. Parquet and compressed CSV -----------------------------------------------------------
def test_parquet_keeps_types_and_category_order(capsys, tmp_path) -> None:
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({
        "grade": pd.Categorical(["3", "1", "2", "1", None, "3"], categories=["3", "1", "2"]),
        "size": [1.5, np.nan, 2.0, 3.0, 4.0, 0.5],
        "name": ["x", "NA", "y", "x", "y", "x"],
        "y": pd.Categorical(["lo", "hi", "lo", "hi", "lo", None], categories=["lo", "hi"]),
    })
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X, y, schema = read_data(path, "y")
    assert kinds(schema) == {"grade": "categorical", "size": "numeric", "name": "categorical"}
    assert schema.feature("grade").codebook.values == ("3", "1", "2")  # stored order
    assert schema.classes.values == ("lo", "hi")
    assert schema.feature("name").codebook.values == ("x", "y")
    assert X["name"].isna().tolist() == [False, True, False, False, False, False]
    model = DecisionTreeClassifier().fit(X, y)
    assert list(model.classes_) == ["lo", "hi"]
    code, out, err = run(capsys, "train", path, "--target", "y", "--out", tmp_path / "m.json")
    assert code == 0 and "Trained on 5 rows" in out and "left out 1 of 6 rows" in err
    code, out, _ = run(capsys, "predict", tmp_path / "m.json", path)
    assert code == 0 and len(out.splitlines()) == 7
    code, out, _ = run(capsys, "inspect", path, "--target", "y")
    assert code == 0 and "grade   categorical" in out


def test_category_order_decides_ties(tmp_path) -> None:
    # one leaf holding one row of each class: the prediction is the first class in the
    # codebook, which is the categorical's order (not the sorted order), from a DataFrame
    # and from a Parquet file alike
    X = pd.DataFrame({"c": pd.Categorical(["a", "a"], categories=["b", "a"])})
    for order in (["q", "p"], ["p", "q"]):
        y = pd.Series(pd.Categorical(["p", "q"], categories=order))
        model = DecisionTreeClassifier().fit(X, y)
        assert model.schema_.feature("c").codebook.values == ("b", "a")
        assert list(model.classes_) == order
        assert model.predict(X).tolist() == [order[0], order[0]]
        if order == ["q", "p"]:
            pytest.importorskip("pyarrow")
            X.assign(y=y).to_parquet(tmp_path / "tie.parquet")
            X2, y2, schema = read_data(tmp_path / "tie.parquet", "y")
            assert schema.classes.values == ("q", "p")
            assert schema.feature("c").codebook.values == ("b", "a")
            assert DecisionTreeClassifier().fit(X2, y2).predict(X2).tolist() == ["q", "q"]


CSV = "x;c;y\n1,5;a;p\nNA;b;q\n2;NA;p\n3;b;q\n"


@pytest.mark.parametrize("suffix, opener", [
    (".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open), (".zip", None)])
def test_compressed_csv_reads_like_the_plain_file(capsys, tmp_path, suffix, opener) -> None:
    plain = write(tmp_path / "t.csv", CSV)
    path = tmp_path / f"t.csv{suffix}"
    if opener is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.write(plain, "t.csv")
    else:
        with opener(path, "wb") as fh:
            fh.write(CSV.encode())
    X, y, schema = read_data(path, "y")
    X0, y0, schema0 = read_csv(plain, "y")
    assert schema == schema0 and X.equals(X0) and y.equals(y0)
    assert X["x"].tolist()[0] == 1.5  # ';'-separated: the delimiter was detected inside
    code, out, _ = run(capsys, "eval", path, "--target", "y", "--cv", "2")
    assert code == 0 and "on 4 rows" in out


def test_compressed_errors_name_file_line_and_column(capsys, tmp_path) -> None:
    ragged = tmp_path / "r.csv.gz"
    with gzip.open(ragged, "wt") as fh:
        fh.write("a,b,y\n" + "1,2,p\n" * 50 + "1,2\n" + "1,2,q\n" * 5)
    with pytest.raises(DataError) as exc:
        read_csv(ragged, "y")
    assert str(exc.value) == f"{ragged}: line 52 has 2 fields, expected 3"
    bad = tmp_path / "b.csv.xz"
    with lzma.open(bad, "wb") as fh:
        fh.write(b"a,y\n" + b"x,p\n" * 10 + b"\xe9t\xe9,q\n")
    with pytest.raises(DataError) as exc:
        read_csv(bad, "y")
    assert str(exc.value).startswith(f"{bad}: line 12, column 1: not UTF-8 text (byte 0xe9")
    code, _, err = run(capsys, "train", bad, "--target", "y", "--out", tmp_path / "m.json")
    assert code == 2 and err.startswith(f"quercus: error: {bad}: line 12, column 1")
    broken = tmp_path / "broken.csv.gz"
    rows = "".join(f"{v},p\n" for v in np.random.default_rng(0).random(5000))
    whole = gzip.compress(("a,y\n" + rows).encode())
    broken.write_bytes(whole[: len(whole) // 2])
    code, _, err = run(capsys, "train", broken, "--target", "y", "--out", tmp_path / "m.json")
    assert code == 2 and err == (f"quercus: error: {broken}: cannot read the file (Compressed "
                                 "file ended before the end-of-stream marker was reached)\n")
    code, _, err = run(capsys, "train", tmp_path / "t.json.gz", "--target", "y", "--out", "m")
    assert code == 2 and "compressed data must be a CSV file" in err


def test_streaming_route_reads_compressed_csv(tmp_path) -> None:
    text = "x,c,y\n" + "".join(f"{i % 7},{'NA' if i % 5 == 0 else 'ab'[i % 2]},"
                               f"{'NA' if i % 11 == 0 else 'pq'[i % 3 == 0]}\n" for i in range(200))
    path = tmp_path / "s.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write(text)
    data = read_csv_binned(path, "y")
    plain = read_csv_binned(write(tmp_path / "s.csv", text), "y")
    assert data.schema == plain.schema and data.n_rows == 200
    assert data.schema.feature("c").codebook.values == ("a", "b")
    assert data.schema.classes.values == ("p", "q")
    assert len(data.y) == 200 - len(range(0, 200, 11))
    np.testing.assert_array_equal(data.binned, plain.binned)


# -- 7. a bad line in a file that is mostly fine -----------------------------------------------
def test_bad_byte_in_a_plain_file_names_line_and_column(tmp_path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"name,y\n" + b"ok,p\n" * 1000 + "Jos\xe9,q\n".encode("latin-1"))
    with pytest.raises(DataError) as exc:
        read_csv(path, "y")
    assert str(exc.value).startswith(f"{path}: line 1002, column 4: not UTF-8 text (byte 0xe9")


# -- 8. files as R, Excel and pandas write them ------------------------------------------------
def test_r_write_csv() -> None:
    X, _, schema = read_csv(FIXTURES / "r_write_csv.csv", "species")
    assert list(X.columns) == ["island", "bill_length_mm", "bill_depth_mm", "flipper_length_mm",
                               "body_mass_g", "sex", "year", "tagged", "note"]  # row names out
    assert kinds(schema) == {
        "island": "categorical", "bill_length_mm": "numeric", "bill_depth_mm": "numeric",
        "flipper_length_mm": "numeric", "body_mass_g": "numeric", "sex": "categorical",
        "year": "numeric", "tagged": "categorical", "note": "categorical"}
    # the rows R wrote: 1:6, 9:12, 272, 344 of penguins; 4 and 272 have NA measurements
    assert X["bill_length_mm"].isna().tolist() == [False] * 3 + [True] + [False] * 6 + [True,
                                                                                       False]
    assert X["bill_length_mm"].iloc[0] == 39.1
    assert int(X["sex"].isna().sum()) == 6  # R: sum(is.na(small$sex))
    assert schema.feature("sex").codebook.values == ("female", "male")
    assert schema.feature("tagged").codebook.values == ("FALSE", "TRUE")
    # R writes a missing string as NA and the string "NA" as "NA": both read as missing
    assert int(X["note"].isna().sum()) == 2
    X, _, schema = quiet_read(FIXTURES / "r_write_csv.csv", "species", keep_na="NA")
    assert "NA" in schema.feature("note").codebook.values


def test_r_named_rows_are_left_out() -> None:
    X, _, schema = read_csv(FIXTURES / "r_named_rows.csv")
    assert list(X.columns) == ["mpg", "cyl", "disp", "hp", "drat", "wt", "qsec", "vs", "am",
                               "gear", "carb"]
    assert set(kinds(schema).values()) == {"numeric"}
    assert X["mpg"].tolist()[:3] == [21.0, 21.0, 22.8]  # head(mtcars)$mpg


def test_excel_semicolon_bom_and_decimal_commas() -> None:
    X, y, schema = read_csv(FIXTURES / "excel_semicolon.csv", "Klasse")
    assert list(X.columns) == ["Name", "Gewicht", "Größe", "Stadt"]  # BOM not in the name
    assert kinds(schema) == {"Name": "categorical", "Gewicht": "numeric", "Größe": "numeric",
                             "Stadt": "categorical"}
    assert X["Gewicht"].tolist()[:1] + X["Gewicht"].tolist()[2:] == [61.5, 58.0, 90.25, 70.0]
    assert np.isnan(X["Gewicht"].iloc[1])  # #N/A
    assert X["Größe"].isna().tolist() == [False, False, True, False, False]
    assert X["Größe"].iloc[0] == 1.68
    assert schema.feature("Stadt").codebook.values == ("Bonn", "Essen; Ruhr", "Köln")
    assert y.tolist() == ["A", "B", "A", "B", "A"]


def test_pandas_to_csv() -> None:
    X, y, schema = read_csv(FIXTURES / "pandas_to_csv.csv", "label")
    assert kinds(schema) == {"height": "numeric", "count": "numeric", "colour": "categorical",
                             "ok": "categorical"}
    assert X["height"].isna().tolist() == [False, True, False, False, False, True]
    assert X["count"].isna().tolist() == [False, False, True, False, False, False]
    assert X["colour"].isna().tolist() == [False, True, False, False, False, False]
    assert schema.feature("ok").codebook.values == ("False", "True")
    assert y.isna().tolist() == [False, False, False, True, False, False]


# -- 9. the bundled data sets with NA --------------------------------------------------------
def test_bundled_penguins_and_airquality_read_numeric_columns() -> None:
    X, y, schema = datasets.load("penguins")
    assert kinds(schema) == {
        "island": "categorical", "bill_length_mm": "numeric", "bill_depth_mm": "numeric",
        "flipper_length_mm": "numeric", "body_mass_g": "numeric", "sex": "categorical",
        "year": "numeric"}
    # R: colSums(is.na(penguins))
    assert X.isna().sum().to_dict() == {"island": 0, "bill_length_mm": 2, "bill_depth_mm": 2,
                                        "flipper_length_mm": 2, "body_mass_g": 2, "sex": 11,
                                        "year": 0}
    X, y, schema = datasets.load("airquality")
    assert set(kinds(schema).values()) == {"numeric"}
    # R: colSums(is.na(airquality)); table(airquality$Month)
    assert X.isna().sum().to_dict() == {"Ozone": 37, "Solar.R": 7, "Wind": 0, "Temp": 0, "Day": 0}
    assert schema.classes.values == (5, 6, 7, 8, 9)
    assert y.value_counts().sort_index().tolist() == [31, 30, 31, 31, 30]


# -- the options on every command that reads data ----------------------------------------------
@pytest.mark.parametrize("argv", [
    ["train", "d.csv", "--target", "y", "--out", "m.json"],
    ["eval", "d.csv", "--target", "y"],
    ["predict", "m.json", "d.csv"],
    ["inspect", "d.csv"],
    ["rules", "m.json", "--simplify", "--data", "d.csv"],
    ["report", "m.json", "d.csv", "--out", "r.html"],
    ["plot", "m.json", "d.csv", "--out", "p.png"],
    ["export", "m.json", "--ranges", "d.csv"],
])
def test_every_reading_command_takes_the_token_options(argv) -> None:
    args = cli.build_parser().parse_args([*argv, "--na-values", "unknown", "-",
                                          "--keep-na-token", "NA"])
    assert args.na_values == ["unknown", "-"] and args.keep_na == ["NA"]


def test_token_options_reach_rules_report_and_export(capsys, tmp_path) -> None:
    rows = "".join(f"{x},{'pq'[x > 4]}\n" for x in range(10)) + "unknown,p\n"
    train = write(tmp_path / "t.csv", "x,y\n" + rows)
    model = tmp_path / "m.json"
    code, _, _ = run(capsys, "train", train, "--target", "y", "--out", model,
                     "--na-values", "unknown")
    assert code == 0
    other = write(tmp_path / "o.csv", "x,y\n" + rows.replace("unknown", "n/k"))
    code, _, err = run(capsys, "rules", model, "--simplify", "--data", other)
    assert code == 2 and "'n/k' is not a number" in err
    for argv in (["rules", model, "--simplify", "--data", other],
                 ["report", model, other, "--out", tmp_path / "r.html"],
                 ["export", model, "--ranges", other, "--out", tmp_path / "t.py"]):
        code, _, err = run(capsys, *argv, "--na-values", "n/k")
        assert code == 0, err


def test_a_kept_na_class_is_a_class_in_cross_validation(tmp_path) -> None:
    rows = "".join(f"{x},{['NA', 'p', 'q'][x % 3]}\n" for x in range(30))
    path = write(tmp_path / "t.csv", "x,y\n" + rows)
    X, y, schema = read_csv(path, "y", keep_na="NA")
    assert schema.classes.values == ("NA", "p", "q")
    result = cross_validate(DecisionTreeClassifier(), X, y, n_folds=3)
    assert list(result.labels) == ["NA", "p", "q"] and result.confusion.sum() == 30
    X, y, _ = read_csv(path, "y")
    result = cross_validate(DecisionTreeClassifier(), X, y, n_folds=3)
    assert list(result.labels) == ["p", "q"] and result.confusion.sum() == 20


def test_inspect_an_arff_file(capsys, tmp_path) -> None:
    arff = write(tmp_path / "w.arff", "@relation w\n@attribute t numeric\n@attribute o {a, b}\n"
                 "@attribute y {p, q}\n@data\n1,a,p\nNA,b,q\n3,?,p\n")
    code, out, _ = run(capsys, "inspect", arff, "--target", "y")
    assert code == 0
    assert out.splitlines()[2].split()[:4] == ["t", "numeric", "1", "2"]
    assert out.splitlines()[3].split()[:4] == ["o", "categorical", "1", "2"]
    assert out.splitlines()[4] == "classes of 'y' (2): p (2), q (1)"
    code, _, err = run(capsys, "inspect", arff, "--numeric", "t")
    assert code == 2 and "--numeric does not apply to an ARFF file" in err


def test_parquet_forced_types_bools_and_errors(tmp_path, monkeypatch) -> None:
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"code": pd.Categorical(["10", "2", "NA", "10"]),
                          "flag": [True, False, True, None],
                          "n": ["1", "2", "x", "4"], "y": [1, 2, 1, 2]})
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    with pytest.warns(UserWarning, match=r"t.parquet: column 'n' was read as categorical "
                                         r"although 3 of its 4 values are numbers"):
        X, _, schema = read_data(path, "y", numeric=["code"], categorical=["y"])
    assert kinds(schema) == {"code": "numeric", "flag": "categorical", "n": "categorical"}
    assert X["code"].tolist()[:2] == [10.0, 2.0] and np.isnan(X["code"].iloc[2])
    assert schema.feature("flag").codebook.values == (False, True)
    with pytest.raises(DataError) as exc:
        read_data(path, "y", numeric=["n"])
    assert str(exc.value) == f"{path}, column 'n', row 3: 'x' is not a number"
    when = tmp_path / "dates.parquet"
    pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2021-01-01"]), "y": [1, 2]}).to_parquet(when)
    with pytest.raises(DataError, match="column 'd' has unsupported type"):
        read_data(when, "y")
    junk = write(tmp_path / "junk.parquet", "not parquet")
    with pytest.raises(DataError, match=r"junk.parquet: cannot read the Parquet file \("):
        read_data(junk)
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)
    with pytest.raises(DataError, match=r"reading Parquet needs pyarrow: pip install "
                                        r"'quercus\[parquet\]'"):
        read_data(path)


def test_a_csv_model_predicts_parquet_rows(capsys, tmp_path) -> None:
    pytest.importorskip("pyarrow")
    train = write(tmp_path / "t.csv", "x,c,y\n1,a,p\n2,b,q\n3,a,p\n4,b,q\n")
    code, _, _ = run(capsys, "train", train, "--target", "y", "--out", tmp_path / "m.json")
    assert code == 0
    new = tmp_path / "new.parquet"
    pd.DataFrame({"c": ["a", "NA", "b"], "x": [1.0, None, 4.0]}).to_parquet(new)
    code, out, err = run(capsys, "predict", tmp_path / "m.json", new)
    assert code == 0, err
    assert out.splitlines()[0] == "prediction" and len(out.splitlines()) == 4


def test_a_zip_must_hold_one_file(capsys, tmp_path) -> None:
    path = tmp_path / "two.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.csv", "x,y\n1,p\n")
        archive.writestr("b.csv", "x,y\n2,q\n")
    code, _, err = run(capsys, "inspect", path)
    assert code == 2 and err.startswith(f"quercus: error: {path}: ") and err.count("\n") == 1


@pytest.mark.parametrize("suffix, reason", [
    (".gz", "Not a gzipped file"), (".bz2", "Invalid data stream"),
    (".zip", "File is not a zip file"), (".xz", "Input format not supported by decoder")])
def test_a_file_that_is_not_what_its_name_says(capsys, tmp_path, suffix, reason) -> None:
    path = write(tmp_path / f"plain.csv{suffix}", "a,y\n1,p\n")
    for argv in (["inspect", path],
                 ["train", path, "--target", "y", "--out", tmp_path / "m.json"],
                 ["train", path, "--target", "y", "--out", tmp_path / "m.json", "--stream",
                  "--splitter", "hist"]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.startswith(f"quercus: error: {path}: cannot read the file "
                                            f"({reason}") and err.count("\n") == 1
    assert not (tmp_path / "m.json").exists()


def test_a_dataframe_can_keep_na_as_a_category(tmp_path) -> None:
    from quercus.data.frames import na_tokens

    X = pd.DataFrame({"country": ["NA", "DE", "NA", "DE"]})  # NA: Namibia
    y = ["p", "q", "p", "q"]
    assert DecisionTreeClassifier().fit(X, y).schema_.feature("country").codebook.values == (
        "DE",)
    X.attrs["na_tokens"] = na_tokens(keep_na=["NA"])
    model = DecisionTreeClassifier().fit(X, y)
    assert model.schema_.feature("country").codebook.values == ("DE", "NA")
    assert model.predict(pd.DataFrame({"country": ["NA", "DE"]})).tolist() == ["p", "q"]
    model.save(tmp_path / "m.json")
    again = load_model(tmp_path / "m.json")
    assert again.predict(pd.DataFrame({"country": ["NA"]})).tolist() == ["p"]
