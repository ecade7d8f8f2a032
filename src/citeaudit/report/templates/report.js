"use strict";
// The claims table of the HTML report. Every piece of report text is written with
// textContent (never as markup); rows are drawn a page at a time as they scroll into view.
(function () {
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var claims = data.claims;
  var PAGE = 100;
  var collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
  var rank = { status: {}, verdict: {} };
  data.status_order.forEach(function (s, i) { rank.status[s] = i; });
  data.verdict_order.forEach(function (v, i) { rank.verdict[v] = i; });

  var state = {
    query: "",
    filters: { status: [], code: [], verdict: [] },
    sort: null,
    dir: 1,
    openAll: null,          // null: failing claims open, passing ones closed; true/false: all
    toggled: new Set(),     // claims opened or closed by hand, against the default
    order: [],
    shown: 0
  };
  var table = document.getElementById("claims");
  var more = document.getElementById("more");
  var search = document.getElementById("search");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return parent;
  }

  // -- differences: the changed parts of two texts --------------------------------------
  // Words first (a longest common subsequence, bounded); then, between two matched words, the
  // characters, where the two stretches are alike enough for that to read as a typo.
  var WORDS = /[\p{L}\p{N}]+|\s+|[^\p{L}\p{N}\s]/gu;
  var MAX_CELLS = 4000000;
  function common(x, y) {
    var pairs = [], pre = 0, suf = 0;
    while (pre < x.length && pre < y.length && x[pre] === y[pre]) { pairs.push([pre, pre]); pre++; }
    while (suf < x.length - pre && suf < y.length - pre && x[x.length - 1 - suf] === y[y.length - 1 - suf]) suf++;
    var n = x.length - pre - suf, m = y.length - pre - suf;
    if (n > 0 && m > 0 && n * m <= MAX_CELLS) {
      var w = m + 1, t = new Uint16Array((n + 1) * w);
      for (var i = n - 1; i >= 0; i--) {
        for (var j = m - 1; j >= 0; j--) {
          t[i * w + j] = x[pre + i] === y[pre + j] ? t[(i + 1) * w + j + 1] + 1
            : Math.max(t[(i + 1) * w + j], t[i * w + j + 1]);
        }
      }
      var p = 0, q = 0;
      while (p < n && q < m) {
        if (x[pre + p] === y[pre + q]) { pairs.push([pre + p, pre + q]); p++; q++; }
        else if (t[(p + 1) * w + q] >= t[p * w + q + 1]) p++;
        else q++;
      }
    }
    for (var k = suf; k > 0; k--) pairs.push([x.length - k, y.length - k]);
    return pairs;
  }
  function push(out, text, changed) {
    if (!text) return;
    var last = out[out.length - 1];
    if (last && last[1] === changed) last[0] += text; else out.push([text, changed]);
  }
  function chars(a, b, outA, outB) {
    var x = Array.from(a), y = Array.from(b), pairs = common(x, y);
    if (pairs.length * 2 < Math.max(x.length, y.length)) { push(outA, a, true); push(outB, b, true); return; }
    var fx = new Array(x.length).fill(true), fy = new Array(y.length).fill(true);
    pairs.forEach(function (p) { fx[p[0]] = false; fy[p[1]] = false; });
    x.forEach(function (c, i) { push(outA, c, fx[i]); });
    y.forEach(function (c, i) { push(outB, c, fy[i]); });
  }
  function diff(a, b, wordsOnly) {
    var x = a.match(WORDS) || [], y = b.match(WORDS) || [];
    var outA = [], outB = [], pi = 0, pj = 0;
    function gap(i, j) {
      var sa = x.slice(pi, i).join(""), sb = y.slice(pj, j).join("");
      if (sa && sb && !wordsOnly) chars(sa, sb, outA, outB);
      else { push(outA, sa, true); push(outB, sb, true); }
    }
    common(x, y).forEach(function (p) {
      gap(p[0], p[1]);
      push(outA, x[p[0]], false);
      push(outB, y[p[1]], false);
      pi = p[0] + 1;
      pj = p[1] + 1;
    });
    gap(x.length, y.length);
    return [outA, outB];
  }
  function marked(parent, parts, cls) {
    parts.forEach(function (part) {
      add(parent, part[1] ? el("mark", part[0].trim() ? cls : cls + " ws", part[0]) : part[0]);
    });
    return parent;
  }

  // -- one claim's details -----------------------------------------------------------
  function badge(status, words) { return el("span", "badge s-" + status, words || data.status_words[status] || status.replace(/_/g, " ")); }
  function statusBadge(c) {
    var b = badge(c.status, c.status_word);
    if (c.status_word) b.className += " b-" + c.status_word.replace(/ /g, "-");
    return b;
  }
  var ROW_WORDS = { pass: "passed", fail: "failed", could_not_check: "could not check" };

  function comparison(cit) {
    if (!cit.compare.length) return null;
    var t = el("table", "compare");
    add(t, el("caption", "", "What was cited, beside the " + cit.held));
    var head = add(el("tr"), el("th", "", "Field"), el("th", "", "Cited"), el("th", "", cit.held.charAt(0).toUpperCase() + cit.held.slice(1).replace(/ \(.*/, "")));
    head.childNodes.forEach(function (th) { th.setAttribute("scope", "col"); });
    add(t, add(el("thead"), head));
    var body = el("tbody");
    cit.compare.forEach(function (r) {
      var tr = el("tr", r[3] ? "differs" : "");
      var field = add(el("th", "", r[0]), r[3] ? el("span", "flag", "differs") : null);
      field.setAttribute("scope", "row");
      var cited = el("td"), held = el("td");
      if (r[3] && r[1] && r[2]) {
        var d = diff(r[1], r[2], true);
        marked(cited, d[0], "del");
        marked(held, d[1], "ins");
      } else {
        cited.textContent = r[1] || "—";
        held.textContent = r[2] || "—";
      }
      add(body, add(tr, field, cited, held));
    });
    return add(t, body);
  }

  function quoteBlock(cit) {
    var q = cit.quote;
    if (!q) return null;
    var box = el("div", "quote");
    var other = q.excerpt && q.normalized ? q.excerpt[1] : q.closest ? q.closest.text : q.held ? q.held.text : null;
    var d = other !== null && q.cited ? diff(q.cited, other, false) : null;
    // Struck through in red only where the quote is in the source nowhere: a quote found after
    // normalising (letter case, spaces…) or at another range is drawn as found, its differences
    // underlined.
    var found = !!q.excerpt || !!q.found_elsewhere;
    var cls = found ? "norm" : "del";
    if (q.cited && (!q.excerpt || q.normalized)) {
      var label = "Quote as cited:";
      if (q.excerpt) label = "Quote as cited, found in the source after normalising " + q.normalized.join(", ") + (d ? " (the characters written differently are underlined):" : ":");
      else if (q.found_elsewhere) label = "Quote as cited, found in the source " + q.found_elsewhere + ", not at the cited range:";
      else if (d) label = "Quote as cited (the characters that differ are marked):";
      var drawn = d && !q.found_elsewhere ? marked(el("blockquote", "cited" + (found ? " found" : "")), d[0], cls) : el("blockquote", "cited" + (found ? " found" : ""), q.cited);
      add(box, el("p", "label", label), drawn);
    }
    if (q.excerpt) {
      var where = "Found in the source" + (q.where ? " at " + q.where : "") + (q.normalized ? ", after normalising " + q.normalized.join(", ") : "") + ":";
      var match = el("mark", "span");
      match.setAttribute("data-citation", cit.id || "");
      if (d) marked(match, d[1], "norm"); else match.textContent = q.excerpt[1];
      add(box, el("p", "label", where), add(el("blockquote", "source-text"), (q.excerpt[3] ? "…" : "") + q.excerpt[0], match, q.excerpt[2] + (q.excerpt[4] ? "…" : "")));
    } else if (q.closest) {
      var sim = q.closest.similarity === null || q.closest.similarity === undefined ? "" : ", similarity " + q.closest.similarity;
      add(box, el("p", "label", "Not in the source. The closest passage, at " + q.closest.where + sim + " (the report holds the passage, not the text around it):"),
        marked(el("blockquote", "source-text closest"), d ? d[1] : [[q.closest.text, false]], "ins"));
    }
    if (q.held) {
      if (q.closest) d = q.cited ? diff(q.cited, q.held.text, false) : null;
      add(box, el("p", "label", "The text at the cited range " + q.held.where + (d ? " (where it differs from the quote is marked)" : "") + ":"),
        marked(el("blockquote", "source-text held"), d ? d[1] : [[q.held.text, false]], "ins"));
    }
    return box;
  }

  function citation(cit) {
    var sec = el("section", "citation c-" + cit.status);
    // A finding of no claim wears its severity, a citation matched by search says so: neither "passed".
    var words = cit.badge || ROW_WORDS[cit.status] || cit.status;
    var h = add(el("h3"), el("span", "badge r-" + cit.status + (cit.badge ? " b-" + cit.badge.replace(/ /g, "-") : ""), words), " ",
      el("span", "cid", cit.id || (cit.status === "no_claim" ? "of no claim" : "no citation")), cit.source ? " · " : "", cit.source ? el("span", "src", cit.source) : null);
    add(sec, h, comparison(cit), quoteBlock(cit));
    if (cit.findings.length) {
      var ul = el("ul", "findings");
      cit.findings.forEach(function (f) {
        add(ul, add(el("li", "sev-" + f[0]), el("span", "sev", f[0]), " ", el("code", "code", f[1]), " ", f[2],
          f[3] ? el("span", "more", " — " + f[3]) : null));
      });
      add(sec, ul);
    }
    if (cit.fix) add(sec, fixBox(cit, cit.fix, "Suggested fix: set these fields in the citation" + (cit.path ? " at " + cit.path : "") + ":"));
    if (cit.passage_fix) {
      var pf = cit.passage_fix;
      add(sec, fixBox(cit, pf.fix, "Suggested fix: quote the passage " + pf.where + " of the " + pf.from +
        " the judge found supporting the claim (judged, not proved: once quoted, the next audit checks that it is in the same saved text). Add it to the citation" +
        (cit.path ? " at " + cit.path : "") + ":", "passage-fix"));
    }
    return sec;
  }

  function fixBox(cit, fix, label, cls) {
    var pre = el("pre", "fix", fix);
    var copy = el("button", "copy", "Copy");
    copy.type = "button";
    copy.setAttribute("aria-label", "Copy the suggested fix of " + (cit.id || "this citation"));
    copy.addEventListener("click", function () {
      var range = document.createRange();
      range.selectNodeContents(pre);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      if (navigator.clipboard) navigator.clipboard.writeText(fix).then(function () { copy.textContent = "Copied"; }, function () {});
    });
    return add(el("div", "fixbox" + (cls ? " " + cls : "")), el("p", "label", label), pre, copy);
  }

  // -- a verdict on retrieved passages: each passage in the text around it ----------------
  // Judged, never proved: the badge, the colour and the words are not those of a verified quote.
  function basisBadge(basis) {
    return basis === "retrieved" ? el("span", "badge basis-retrieved", "judged on retrieved passages")
      : el("span", "badge basis-quote", "quote verified");
  }
  function passagesBlock(j) {
    var box = el("div", "passages");
    add(box, el("p", "label", "The judge was given no quote: it read the passages of the cited texts that best match the claim (ranked, not verified; a judgement, not a check)."));
    j.passages.forEach(function (p) {
      var sec = el("div", "passage b-" + p.basis);
      sec.setAttribute("data-rank", String(p.rank));
      var head = add(el("p", "passage-head"), el("span", "badge from b-" + p.basis, p.from), " ",
        el("span", "rank", "rank " + p.rank), " · ", el("span", "where", p.where + (p.length !== null ? " of " + p.length + " characters" : "")),
        " · ", el("span", "text-name", p.name || "text"), " · ", el("code", "digest", "sha256 " + p.digest + "…"));
      var mark = el("mark", "passage", p.around[1]);
      mark.title = "rank " + p.rank + ", characters " + p.where;
      add(sec, head, add(el("blockquote", "source-text in-text"), p.around[0] ? el("span", "around", p.around[0]) : null, mark,
        p.around[2] ? el("span", "around", p.around[2]) : null));
      add(box, sec);
    });
    if (j.texts.length) {
      var ul = el("ul", "texts-read");
      j.texts.forEach(function (t) {
        add(ul, add(el("li"), "Read " + t.from + ": ", el("span", "text-name", t.name), " · " + t.length + " characters · ", el("code", "digest", "sha256 " + t.digest + "…")));
      });
      add(box, el("p", "label", "Texts read:"), ul);
    }
    return box;
  }

  function details(c) {
    var box = el("div", "details");
    add(box, el("p", "claim-text", c.text || "(no text)"));
    if (c.paragraph) {  // a claim of a Markdown report, in its paragraph as the report wrote it
      add(box, el("p", "label", "In the report, at " + c.paragraph[3] + ":"));
      add(box, add(el("blockquote", "source-text paragraph"), c.paragraph[0], el("mark", "claim-in-text", c.paragraph[1]), c.paragraph[2]));
    }
    if (c.rationale) add(box, el("p", "note", "Rationale: " + c.rationale));
    var v = add(el("p", "verdict-line"), el("span", "note", "Kind: " + c.kind + (c.review ? " · " + c.review : "") + " · "),
      "verdict on support (a judge's opinion, not a check): ", el("strong", "", c.verdict_words));
    if (c.judged) {
      add(v, " by " + c.judged.by + " (", el("code", "judge", c.judged.judge), ") ", basisBadge(c.judged.basis));
      if (c.judged.unsupported.length) add(v, ". Words of the claim no cited passage covers: " + c.judged.unsupported.join(", "));
      if (c.judged.signals.length) add(v, ". Risk signals: " + c.judged.signals.join(", "));
    }
    add(box, v);
    if (c.judged && c.judged.basis === "retrieved") add(box, passagesBlock(c.judged));
    c.reviews.forEach(function (r) { add(box, el("p", "review", "Reviewed by " + r[1] + ": " + r[0] + (r[2] ? " — " + r[2] : ""))); });
    if (!c.citations.length) add(box, el("p", "note", "The claim cites nothing."));
    c.citations.forEach(function (cit) { add(box, citation(cit)); });
    return box;
  }

  // -- the table ---------------------------------------------------------------------
  function isOpen(i) {
    var def = state.openAll === null ? claims[i].status !== "requires_entailment_check" : state.openAll;
    return state.toggled.has(i) ? !def : def;
  }
  function setOpen(group, open) {
    var i = Number(group.getAttribute("data-index"));
    var button = group.querySelector("button.toggle");
    var detail = group.querySelector("tr.detail");
    button.setAttribute("aria-expanded", open ? "true" : "false");
    button.textContent = open ? "▾" : "▸";
    if (open && !detail.firstChild.firstChild) detail.firstChild.appendChild(details(claims[i]));
    detail.hidden = !open;
    group.classList.toggle("open", open);
  }
  function row(i) {
    var c = claims[i];
    var group = el("tbody", "claim");
    group.id = "claim-" + i;
    group.setAttribute("data-index", String(i));
    group.setAttribute("data-status", c.status);
    group.setAttribute("data-id", c.id);
    var tr = el("tr", "main");
    var button = el("button", "toggle", "▸");
    button.type = "button";
    button.setAttribute("aria-controls", "detail-" + i);
    button.setAttribute("aria-label", "Details of claim " + c.id);
    var codes = el("td", "codes");
    c.codes.forEach(function (code) { add(codes, el("span", "code", code), " "); });
    var cid = el("td", "cid", c.id);
    cid.title = c.id;
    add(tr, add(el("td", "toggle-cell"), button), cid, add(el("td", "text"), el("div", "trunc", c.text),
      c.entry ? el("div", "entry", c.entry) : null),
      add(el("td", "status-cell"), statusBadge(c)), add(el("td", "verdict v-" + c.verdict, c.verdict_words),
        c.judged && c.judged.basis === "retrieved" ? el("span", "badge basis-retrieved", "on retrieved passages") : null), codes);
    var detail = el("tr", "detail");
    detail.id = "detail-" + i;
    var cell = el("td");
    cell.colSpan = 6;
    add(detail, cell);
    add(group, tr, detail);
    setOpen(group, isOpen(i));
    return group;
  }
  function toggle(group) {
    var i = Number(group.getAttribute("data-index"));
    if (state.toggled.has(i)) state.toggled.delete(i); else state.toggled.add(i);
    setOpen(group, isOpen(i));
  }
  table.addEventListener("click", function (event) {
    var target = event.target;
    var main = target.closest("tr.main");
    if (!main) return;
    if (target.closest("button.toggle") || !window.getSelection().toString()) toggle(main.parentNode);
  });

  function matches(c) {
    var f = state.filters;
    if (f.status.length && f.status.indexOf(c.filter_status || c.status) < 0) return false;
    if (f.verdict.length && f.verdict.indexOf(c.verdict) < 0) return false;
    if (f.code.length && !c.codes.some(function (code) { return f.code.indexOf(code) >= 0; })) return false;
    return !state.query || haystack(c).indexOf(state.query) >= 0;
  }
  // What the search box looks in: the claim, its sources' DOIs and URLs, codes, quotes and the
  // passages a claim was judged on.
  function haystack(c) {
    if (c.search === undefined) {
      var parts = [c.id, c.text, c.entry || ""];
      if (c.judged && c.judged.passages) c.judged.passages.forEach(function (p) { parts.push(p.around[1]); });
      c.citations.forEach(function (cit) {
        parts.push(cit.id || "", cit.source || "", cit.doi || "", cit.quote && cit.quote.cited || "");
        cit.findings.forEach(function (f) { parts.push(f[1]); });
      });
      c.search = parts.join("\n").toLowerCase();
    }
    return c.search;
  }
  var KEYS = {
    id: function (a, b) { return collator.compare(claims[a].id, claims[b].id); },
    text: function (a, b) { return collator.compare(claims[a].text, claims[b].text); },
    status: function (a, b) { return rank.status[claims[a].status] - rank.status[claims[b].status]; },
    verdict: function (a, b) { return rank.verdict[claims[a].verdict] - rank.verdict[claims[b].verdict]; },
    codes: function (a, b) {
      var x = claims[a].codes, y = claims[b].codes;
      return (y.length - x.length) || collator.compare(x.join(" "), y.join(" "));
    }
  };
  function compute() {
    var order = [];
    for (var i = 0; i < claims.length; i++) if (matches(claims[i])) order.push(i);
    if (state.sort) {
      var key = KEYS[state.sort], dir = state.dir;
      order.sort(function (a, b) { return (key(a, b) * dir) || (a - b); });
    }
    state.order = order;
  }
  function drawMore(count) {
    var frag = document.createDocumentFragment();
    var end = Math.min(state.order.length, state.shown + count);
    for (var k = state.shown; k < end; k++) frag.appendChild(row(state.order[k]));
    table.appendChild(frag);
    state.shown = end;
    more.hidden = state.shown >= state.order.length;
  }
  function redraw() {
    compute();
    Array.prototype.slice.call(table.tBodies).forEach(function (b) { b.remove(); });
    state.shown = 0;
    drawMore(PAGE);
    document.getElementById("shown").textContent = String(state.order.length);
    drawOrphans();
  }
  // Findings of no claim: shown unless a status pill other than theirs is pressed, or only
  // codes they lack, a verdict (they have none) or a search they do not match.
  function orphanShown(cit) {
    var f = state.filters;
    if (f.status.length && f.status.indexOf("no_claim") < 0) return false;
    if (f.verdict.length) return false;
    if (f.code.length && !cit.findings.some(function (x) { return f.code.indexOf(x[1]) >= 0; })) return false;
    if (!state.query) return true;
    var parts = [cit.id || "", cit.source || ""];
    cit.findings.forEach(function (x) { parts.push(x[1], x[2]); });
    return parts.join("\n").toLowerCase().indexOf(state.query) >= 0;
  }
  function drawOrphans() {
    if (!data.orphans.length) return;
    var list = document.getElementById("orphan-list"), n = 0;
    list.textContent = "";
    data.orphans.forEach(function (cit) { if (orphanShown(cit)) { add(list, citation(cit)); n++; } });
    document.getElementById("orphans").hidden = n === 0;
  }

  // -- controls ----------------------------------------------------------------------
  var pills = Array.prototype.slice.call(document.querySelectorAll("button[data-group]"));
  pills.forEach(function (b) {
    b.addEventListener("click", function () {
      var on = b.getAttribute("aria-pressed") !== "true";
      b.setAttribute("aria-pressed", on ? "true" : "false");
      var list = state.filters[b.getAttribute("data-group")], value = b.getAttribute("data-value");
      if (on) list.push(value); else list.splice(list.indexOf(value), 1);
      redraw();
    });
  });
  search.addEventListener("input", function () {
    state.query = search.value.trim().toLowerCase();
    redraw();
  });
  search.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && search.value) { search.value = ""; state.query = ""; redraw(); }
  });
  document.getElementById("clear").addEventListener("click", function () {
    pills.forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
    state.filters = { status: [], code: [], verdict: [] };
    search.value = "";
    state.query = "";
    redraw();
  });
  function openAll(open) {
    state.openAll = open;
    state.toggled.clear();
    Array.prototype.slice.call(table.tBodies).forEach(function (g) { setOpen(g, open); });
  }
  document.getElementById("expand-all").addEventListener("click", function () { openAll(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { openAll(false); });
  Array.prototype.slice.call(document.querySelectorAll("button[data-sort]")).forEach(function (b) {
    b.addEventListener("click", function () {
      var key = b.getAttribute("data-sort");
      state.dir = state.sort === key ? -state.dir : 1;
      state.sort = key;
      Array.prototype.slice.call(document.querySelectorAll("th[aria-sort]")).forEach(function (th) {
        th.setAttribute("aria-sort", th.contains(b) ? (state.dir > 0 ? "ascending" : "descending") : "none");
      });
      redraw();
    });
  });
  document.getElementById("show-more").addEventListener("click", function () { drawMore(PAGE); });
  if (window.IntersectionObserver) {
    new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; }) && !more.hidden) drawMore(PAGE);
    }, { rootMargin: "1200px" }).observe(more);
  }
  document.addEventListener("keydown", function (event) {
    var tag = (event.target.tagName || "").toLowerCase();
    if (event.key === "/" && tag !== "input" && tag !== "textarea" && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      search.focus();
    }
  });
  // Printing shows every claim the filters select, not only the rows drawn so far.
  function forPrint() { if (state.shown < state.order.length) drawMore(state.order.length - state.shown); }
  window.addEventListener("beforeprint", forPrint);
  if (window.matchMedia) window.matchMedia("print").addEventListener("change", function (e) { if (e.matches) forPrint(); });

  redraw();
  document.documentElement.setAttribute("data-ready-ms", String(Math.round(performance.now())));
})();
