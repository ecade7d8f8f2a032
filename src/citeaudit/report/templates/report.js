"use strict";
(function () {
  var buttons = Array.prototype.slice.call(document.querySelectorAll("button[data-filter]"));
  var claims = Array.prototype.slice.call(document.querySelectorAll("li.claim"));
  function apply() {
    var on = buttons.filter(function (b) { return b.getAttribute("aria-pressed") === "true"; })
      .map(function (b) { return b.getAttribute("data-filter"); });
    claims.forEach(function (c) {
      c.hidden = on.length > 0 && on.indexOf(c.getAttribute("data-status")) < 0;
    });
    var shown = claims.filter(function (c) { return !c.hidden; }).length;
    document.getElementById("shown").textContent = String(shown);
  }
  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      b.setAttribute("aria-pressed", b.getAttribute("aria-pressed") === "true" ? "false" : "true");
      apply();
    });
  });
  apply();
})();
