"use strict";
// The part of the HTML report that only a judge with a probability of support (learned) needs.
// As the page's script draws a claim's details, it marks in the claim text the words no cited
// passage supports and adds the probability and what moved it most. Report text is written with
// textContent only.
(function () {
  var claims = JSON.parse(document.getElementById("report-data").textContent).claims;
  var table = document.getElementById("claims");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function decorate(box) {
    if (box.hasAttribute("data-judged")) return;
    box.setAttribute("data-judged", "");
    var group = box.closest("tbody.claim");
    var judged = group ? claims[Number(group.getAttribute("data-index"))].judged : null;
    if (!judged || judged.probability === undefined) return;
    var text = box.querySelector("p.claim-text");
    if (text && judged.pieces) {
      text.textContent = "";
      judged.pieces.forEach(function (piece) {
        if (!piece[1]) { text.appendChild(document.createTextNode(piece[0])); return; }
        var mark = el("mark", "unsupported", piece[0]);
        mark.title = "no cited passage supports these words (the judge's reading)";
        text.appendChild(mark);
      });
    }
    var reading = el("div", "judge-reading");
    var said = "Probability that the cited passages support the claim: " + judged.probability.toFixed(2) +
      " (the judge's estimate, not a check).";
    if (judged.pieces) said += " Marked in the claim: the words no cited passage supports.";
    reading.appendChild(el("p", "label", said));
    if (judged.reason.length) {
      reading.appendChild(el("p", "label", "What moved it most:"));
      var list = el("ul", "reason");
      judged.reason.forEach(function (line) {
        var side = /\(for support\)$/.test(line) ? "for" : /\(against support\)$/.test(line) ? "against" : "";
        list.appendChild(el("li", side, line));
      });
      reading.appendChild(list);
    }
    var line = box.querySelector("p.verdict-line");
    box.insertBefore(reading, line ? line.nextSibling : null);
  }

  function scan(root) {
    if (root.nodeType !== 1) return;
    if (root.matches("div.details")) decorate(root);
    root.querySelectorAll("div.details").forEach(decorate);
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) { r.addedNodes.forEach(scan); });
  }).observe(table, { childList: true, subtree: true });
  scan(table);
})();
