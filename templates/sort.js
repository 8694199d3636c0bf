/* Optional, local table sorting: click a header of a table.sortable. Without JavaScript the
   tables read the same, in the order the report chose. */
(function () {
  "use strict";
  function key(cell) {
    if (!cell) return { n: null, t: "" };
    var raw = cell.getAttribute("data-sort");
    var text = (raw !== null ? raw : cell.textContent).trim();
    var n = parseFloat(text.replace(/\u2212/g, "-").replace(/^\+/, "").replace(/[^0-9eE.+-].*$/, ""));
    return isNaN(n) ? { n: null, t: text.toLowerCase() } : { n: n, t: text };
  }
  function compare(a, b) {
    if (a.n !== null && b.n !== null) return a.n - b.n;
    if (a.n !== null) return -1;
    if (b.n !== null) return 1;
    return a.t < b.t ? -1 : a.t > b.t ? 1 : 0;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var head = table.tHead;
    var body = table.tBodies[0];
    if (!head || !body) return;
    var headers = head.rows[0].cells;
    Array.prototype.forEach.call(headers, function (th, col) {
      th.tabIndex = 0;
      function sort() {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var c = compare(key(r1.cells[col]), key(r2.cells[col]));
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
  });
})();
/* A link to a list, a candidate's side-by-side or a chunk's text on a question page (#list-…,
   #vs-…, #t-…) opens every disclosure that holds it; without JavaScript the reader opens it by
   its name. */
(function () {
  "use strict";
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return;
    var held = target.closest("details") || target.querySelector(":scope > details");
    for (; held; held = held.parentElement && held.parentElement.closest("details")) held.open = true;
  }
  reveal();
  window.addEventListener("hashchange", reveal);
})();
