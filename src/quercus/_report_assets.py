"""The inline CSS and JavaScript of the HTML report (``quercus.report``)."""

CSS = r"""
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 0 auto; max-width: 1200px; padding: 0 1.2em 2em; color: #222; }
h1 { font-size: 1.5em; margin: 0.8em 0 0.3em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.6em; }
nav a { margin-right: 1em; }
.summary { display: flex; flex-wrap: wrap; gap: 0.3em 1.6em; margin: 0 0 0.6em; }
.summary div { display: flex; gap: 0.4em; }
.summary dt { color: #666; } .summary dd { margin: 0; font-weight: 600; }
.note { color: #666; font-size: 0.9em; }
.toolbar { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em; margin: 0.5em 0; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.8em; margin: 0 0 0 1em;
          padding: 0; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; border-radius: 2px;
          margin-right: 0.3em; vertical-align: -0.1em; }
.layout { display: flex; gap: 1em; align-items: flex-start; }
.tree-pane { flex: 1 1 auto; overflow-x: auto; }
#details { flex: 0 0 22em; position: sticky; top: 0.5em; border: 1px solid #ddd;
           border-radius: 6px; padding: 0.6em 0.8em; background: #fafafa; }
#details dl { margin: 0; } #details dt { color: #666; font-size: 0.85em; margin-top: 0.4em; }
#details dd { margin: 0; word-break: break-word; }
ul.tree, ul.children { list-style: none; margin: 0; padding-left: 1.3em; }
ul.tree { padding-left: 0; }
li.collapsed > ul.children { display: none; }
.row { display: flex; align-items: center; gap: 0.5em; padding: 0.15em 0.4em; margin: 1px 0;
       border-left: 5px solid #ccc; border-radius: 3px; cursor: pointer; white-space: nowrap; }
.row:hover { background: #f0f4f8; } .row.selected { background: #e3ecf6; }
.row:focus { outline: 2px solid #4e79a7; outline-offset: -2px; }
.toggle { flex: 0 0 auto; width: 1.6em; height: 1.6em; padding: 0; border: 1px solid #bbb;
          border-radius: 3px;
          background: #fff; cursor: pointer; font-weight: 700; line-height: 1; }
.spacer { display: inline-block; flex: 0 0 auto; width: 1.6em; }
.cond { color: #555; } .cond::after { content: ":"; }
.test { font-weight: 600; } .leaf-class { font-weight: 600; }
.samples { color: #666; font-size: 0.9em; }
.bar { display: inline-flex; width: 80px; height: 0.7em; border: 1px solid #ccc; }
.bar span { display: block; height: 100%; } .bar.empty { background: #eee; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.92em; }
ol.rules li { margin: 0.2em 0; }
table { border-collapse: collapse; } th, td { padding: 0.2em 0.6em; border: 1px solid #ddd; }
th { background: #f4f4f4; text-align: left; } td.num, td.hit { text-align: right; }
td.hit { font-weight: 700; background: #eef6ec; }
table.importances td:last-child { width: 240px; }
.hbar { display: block; height: 0.8em; background: #4e79a7; }
footer { margin-top: 2em; color: #999; font-size: 0.85em; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var root = document.getElementById("tree-root");
  var details = document.getElementById("details");
  var FIELDS = [["node", "Node"], ["branch", "Branch into it"], ["path", "Path from the root"],
                ["test", "Test"], ["samples", "Training rows"], ["weight", "Training weight"],
                ["distribution", "Class distribution"], ["class", "Predicted class"],
                ["impurity", "Impurity"], ["surrogates", "Surrogate splits"]];

  function setOpen(li, open) {
    if (li.classList.contains("leaf")) { return; }
    li.classList.toggle("collapsed", !open);
    li.classList.toggle("open", open);
    var button = li.querySelector(":scope > .row > .toggle");
    button.setAttribute("aria-expanded", open ? "true" : "false");
    button.textContent = open ? "\u2212" : "+";
  }

  function show(row) {
    var previous = root.querySelector(".row.selected");
    if (previous) { previous.classList.remove("selected"); }
    row.classList.add("selected");
    var list = document.createElement("dl");
    FIELDS.forEach(function (field) {
      if (row.dataset[field[0]] === undefined) { return; }  // e.g. surrogates: rpart only
      var dt = document.createElement("dt");
      var dd = document.createElement("dd");
      dt.textContent = field[1];
      dd.textContent = row.dataset[field[0]];
      dd.setAttribute("data-field", field[0]);
      list.appendChild(dt);
      list.appendChild(dd);
    });
    details.replaceChildren(list);
  }

  root.addEventListener("click", function (event) {
    var toggle = event.target.closest(".toggle");
    var li = event.target.closest("li.node");
    if (toggle) {
      setOpen(li, li.classList.contains("collapsed"));
      return;
    }
    var row = event.target.closest(".row");
    if (row) { show(row); }
  });
  root.addEventListener("keydown", function (event) {
    var row = event.target.closest(".row");
    if (!row) { return; }
    var li = row.parentElement;
    if (event.key === "Enter") { show(row); }
    else if (event.key === "ArrowRight") { setOpen(li, true); }
    else if (event.key === "ArrowLeft") { setOpen(li, false); }
    else { return; }
    event.preventDefault();
  });
  function all(open) {
    root.querySelectorAll("li.node:not(.leaf)").forEach(function (li) { setOpen(li, open); });
  }
  document.getElementById("expand-all").addEventListener("click", function () { all(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { all(false); });
})();
"""
