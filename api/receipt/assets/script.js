(function () {
  "use strict";
  // Mark each image as drawn or broken; a broken one is hidden (the
  // digitable line and the PIX text remain).
  function mark(img) {
    img.setAttribute("data-state", img.naturalWidth > 0 ? "ok" : "broken");
  }
  document.querySelectorAll("img[data-check]").forEach(function (img) {
    if (img.complete) {
      mark(img);
      return;
    }
    img.addEventListener("load", function () { mark(img); });
    img.addEventListener("error", function () { mark(img); });
  });

  function select(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  function flash(btn, text) {
    var label = btn.getAttribute("data-label");
    btn.textContent = text;
    setTimeout(function () { btn.textContent = label; }, 2500);
  }
  // Copy buttons are hidden until this script runs; without it the text
  // can still be selected by hand.
  document.querySelectorAll("button[data-copy]").forEach(function (btn) {
    var el = document.getElementById(btn.getAttribute("data-copy"));
    if (!el) {
      return;
    }
    btn.setAttribute("data-label", btn.textContent);
    btn.hidden = false;
    btn.addEventListener("click", function () {
      var text = el.getAttribute("data-value") || el.textContent;
      var fallback = function () {
        select(el);
        var ok = false;
        try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
        flash(btn, ok ? "Copiado!" : "Selecionado: copie com Ctrl+C ou toque longo");
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { flash(btn, "Copiado!"); }, fallback);
      } else {
        fallback();
      }
    });
  });
})();
