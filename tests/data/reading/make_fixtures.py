"""Write the pandas and Excel-style fixtures of this folder (the R ones come from
tools/make_na_datasets.R). Run from the repository root:

    python tests/data/reading/make_fixtures.py
"""

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).parent

# pandas' to_csv: NaN and None become empty cells, booleans True/False, no quoting.
frame = pd.DataFrame({
    "height": [1.5, np.nan, 2.25, 3.0, 0.5, np.nan],
    "count": pd.array([3, 4, None, 1, 2, 2], dtype="Int64"),
    "colour": ["red", None, "green", "red", "blue", "green"],
    "ok": [True, False, True, None, False, True],
    "label": ["a", "b", "a", None, "b", "a"],
})
frame.to_csv(HERE / "pandas_to_csv.csv", index=False)

# Excel's "CSV UTF-8" in a locale whose list separator is ';' and whose decimal mark is ','
# (e.g. German): a byte-order mark, ';' between fields, CRLF line ends, decimal commas,
# '#N/A' where a formula failed, an empty cell, text with a ';' quoted.
rows = [
    "Name;Gewicht;Größe;Stadt;Klasse",
    "Anna;61,5;1,68;Köln;A",
    "Bernd;#N/A;1,80;Bonn;B",
    'Clara;58;;"Essen; Ruhr";A',
    "Dieter;90,25;1,91;Köln;B",
    "Eva;70;1,75;Bonn;A",
]
(HERE / "excel_semicolon.csv").write_bytes(b"\xef\xbb\xbf" + "\r\n".join(rows).encode() + b"\r\n")
