/* The question list (questions.html): filter by typing, sort by clicking a column header.
   Every row comes from data/question-list.js (a script, so it loads from file:// too); the page
   itself holds the first rows for readers without JavaScript. At most `shown` rows are drawn at
   a time, so a list of 50,000 questions stays fast. Text is set with textContent: never parsed
   as HTML; an id shows its invisible characters (visible), and ids and names are isolated
   (dir="auto"), as the page's first rows show them. "questions.html#q=<words>" opens the list filtered by those words; a "quoted phrase" matches
   as typed. */
(function () {
  "use strict";
  var data = window.EVIDENCEDESK_QUESTIONS;
  var table = document.getElementById("question-list");
  var box = document.getElementById("question-filter");
  var status = document.getElementById("question-status");
  var search = document.getElementById("question-search");
  if (!data || !table || !box || !table.tBodies[0]) return;
  var body = table.tBodies[0];
  var cands = data.candidates; // [name, anchor]
  var ID = 0, TEXT = 1, TAGS = 2, CRITICAL = 3, BETTER = 4, WORSE = 5, PASS = 6, PAGE = 7;

  // what evidencedesk.inert.visible shows as "⟨U+200B⟩": the characters that draw nothing, and a
  // zero-width (non-)joiner at the start or after an ASCII character (elsewhere it shapes a word)
  var INVISIBLE = /([\u0000-\u007f]|^)([\u200c\u200d])|[\u00ad\u180e\u200b\u2060-\u2064\ufeff]/g;
  function code(c) {
    return "\u27e8U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + "\u27e9";
  }
  function visible(s) {
    return s.replace(INVISIBLE, function (m, before, joiner) {
      return joiner ? before + code(joiner) : code(m);
    });
  }
  function passWord(v) { return v === 1 ? "pass" : v === 0 ? "fail" : ""; }
  var rows = data.rows.map(function (r, i) {
    var words = [r[ID], r[TEXT], r[TAGS].join(" "), r[CRITICAL] ? "critical" : "", passWord(r[PASS])];
    r[BETTER].forEach(function (j) { words.push("better " + cands[j][0]); });
    r[WORSE].forEach(function (j) { words.push("worse " + cands[j][0]); });
    return { r: r, order: i, text: words.join(" ").toLowerCase() };
  });
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  // the sort key of each column the page shows (data.columns: Tags and Critical may be left out)
  var KEYS = {
    "Question": function (x) { return x.r[ID]; },
    "Text": function (x) { return x.r[TEXT]; },
    "Tags": function (x) { return x.r[TAGS].join(" "); },
    "Critical": function (x) { return x.r[CRITICAL]; },
    "Changed by": function (x) { return x.r[BETTER].length - x.r[WORSE].length; },
    "Pass": function (x) { return x.r[PASS] === null ? -1 : x.r[PASS]; }
  };
  var columns = data.columns;
  var keys = columns.map(function (c) { return KEYS[c]; });
  var sortCol = null, ascending = true;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function link(href, text, cls) {  // text from data: isolated, so it cannot reorder its row
    var a = el(href ? "a" : "span", cls, text);
    if (href) a.setAttribute("href", href);
    a.dir = "auto";
    return a;
  }
  function flips(cell, list, word, arrow, page) {
    list.forEach(function (j) {
      var span = el("span", "flip flip-" + word, arrow + " ");
      span.appendChild(link(page ? page + "#" + cands[j][1] : "", cands[j][0]));
      cell.appendChild(span);
      cell.appendChild(document.createTextNode(" "));
    });
  }
  function rowOf(r) {
    var tr = document.createElement("tr");
    var th = el("th");
    th.setAttribute("scope", "row");
    th.appendChild(link(r[PAGE], visible(r[ID]), "qid"));
    tr.appendChild(th);
    var text = el("td", "", r[TEXT]);
    text.dir = "auto";  // a right-to-left question reads right-aligned, isolated from its row
    tr.appendChild(text);
    if (columns.indexOf("Tags") !== -1) {
      var tags = el("td");
      r[TAGS].forEach(function (t) {
        tags.appendChild(el("span", "tag", t));
        tags.appendChild(document.createTextNode(" "));
      });
      tr.appendChild(tags);
    }
    if (columns.indexOf("Critical") !== -1) {
      var crit = el("td");
      if (r[CRITICAL]) crit.appendChild(el("span", "tag tag-critical", "critical"));
      tr.appendChild(crit);
    }
    var changed = el("td");
    flips(changed, r[BETTER], "better", "\u25b2", r[PAGE]);
    flips(changed, r[WORSE], "worse", "\u25bc", r[PAGE]);
    tr.appendChild(changed);
    var p = r[PASS];
    tr.appendChild(el("td", p === 1 ? "pass-yes" : p === 0 ? "pass-no" : "muted", passWord(p) || "\u2014"));
    return tr;
  }
  function matching() {
    // a "quoted phrase" must appear as typed ("better engine1": better under that candidate)
    var words = (box.value.toLowerCase().match(/"[^"]*"|[^\s"]+/g) || []).map(function (w) {
      return w.replace(/^"|"$/g, "");
    }).filter(Boolean);
    var found = rows.filter(function (x) {
      return words.every(function (w) { return x.text.indexOf(w) !== -1; });
    });
    if (sortCol !== null) {
      var key = keys[sortCol];
      found.sort(function (a, b) {
        var ka = key(a), kb = key(b);
        var c = typeof ka === "number" ? ka - kb : collator.compare(ka, kb);
        return (ascending ? c : -c) || a.order - b.order;
      });
    }
    return found;
  }
  function draw() {
    var found = matching();
    var shown = found.slice(0, data.shown);
    var frag = document.createDocumentFragment();
    shown.forEach(function (x) { frag.appendChild(rowOf(x.r)); });
    body.textContent = "";
    body.appendChild(frag);
    var all = rows.length;
    if (shown.length < found.length) {
      status.textContent = "showing the first " + shown.length + " of " + found.length +
        " matching questions (" + all + " in all): type to narrow";
    } else {
      status.textContent = found.length + " of " + all + " questions";
    }
  }
  var headers = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(headers, function (th, col) {
    th.tabIndex = 0;
    th.classList.add("sort-header");
    function sort() {
      ascending = sortCol === col ? !ascending : true;
      sortCol = col;
      Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      draw();
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
  });
  function fromHash() {
    var h = window.location.hash;
    if (h.indexOf("#q=") === 0) {
      box.value = decodeURIComponent(h.slice(3));
      draw();
    }
  }
  var timer = null;
  box.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(draw, rows.length > 5000 ? 150 : 0);
  });
  window.addEventListener("hashchange", fromHash);
  if (search) search.hidden = false;
  draw();
  fromHash();
})();
