// paperscout archive search: filters window.PAPERSCOUT_SEARCH (search-index.js) in the browser; no server.
// Results are built with textContent only, so no stored text is ever parsed as markup.
(function () {
  "use strict";
  var entries = window.PAPERSCOUT_SEARCH || [];
  var input = document.getElementById("q");
  var results = document.getElementById("results");
  var status = document.getElementById("search-status");
  if (!input || !results || !status) return;

  function fold(text) {
    return String(text).toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  }
  var haystacks = entries.map(function (e) { return fold([e.t, e.a, e.x, e.i].join(" ")); });

  function show(query) {
    var words = fold(query).split(/\s+/).filter(Boolean);
    results.textContent = "";
    if (!words.length) {
      status.textContent = "Type words from a title, an author or a TL;DR above.";
      return;
    }
    var found = [];
    for (var i = 0; i < entries.length; i++) {
      if (words.every(function (w) { return haystacks[i].indexOf(w) !== -1; })) found.push(entries[i]);
    }
    var shown = found.slice(0, 200);
    shown.forEach(function (e) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = e.u;
      a.textContent = e.t;
      var meta = document.createElement("p");
      meta.className = "meta";
      meta.textContent = e.d + " · " + e.s + " · " + e.a;
      li.appendChild(a);
      li.appendChild(meta);
      if (e.x) {
        var tldr = document.createElement("p");
        tldr.textContent = e.x;
        li.appendChild(tldr);
      }
      results.appendChild(li);
    });
    status.textContent = found.length === 0 ? "No paper in the archive matches." :
      found.length + (found.length === 1 ? " paper matches" : " papers match") +
      (found.length > shown.length ? "; the first " + shown.length + " are shown." : ".");
  }

  var form = input.form;
  if (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      show(input.value);
    });
  }
  input.addEventListener("input", function () { show(input.value); });
  var initial = new URLSearchParams(window.location.search).get("q") || "";
  input.value = initial;
  show(initial);
})();
