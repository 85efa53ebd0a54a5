// What a reader of report.html sees, measured by headless Chromium on the laid-out page
// (report_page_test.cpp appends this script to a copy of the page; the report itself has no
// script). With `probePrint` set, the page's print rules are applied on screen first, so that a
// window as wide as an A4 page shows what a printer would get. The findings go into
// <pre id="probe"> as percent-encoded JSON, which --dump-dom passes through unescaped.
(function () {
  if (typeof probePrint !== "undefined" && probePrint) {
    for (const sheet of document.styleSheets)
      for (const rule of sheet.cssRules)
        if (rule instanceof CSSMediaRule && rule.media.mediaText === "print") rule.media.appendMedium("screen");
  }
  const root = document.documentElement;
  const background = (element) => getComputedStyle(element).backgroundColor;
  const failedSwatch = document.querySelector("ul.legend .swatch.failed");
  const findings = {
    scrollWidth: root.scrollWidth,
    clientWidth: root.clientWidth,
    failedBackground: failedSwatch ? background(failedSwatch) : null,
    // Every link in a grid cell, and the row it lands on: its first four cells name the cell.
    gridLinks: Array.from(document.querySelectorAll("table.grid td a")).map((a) => {
      const target = document.getElementById(a.getAttribute("href").slice(1));
      const cell = a.closest("td");
      return {
        targetTag: target ? target.tagName : null,
        targetKey: target && target.cells ? Array.from(target.cells).slice(0, 4).map((c) => c.innerText).join("/") : null,
        background: background(cell),
        text: cell.innerText,
      };
    }),
    notDrawn: document.querySelectorAll("table.grid td.not-drawn").length,
    cards: Array.from(document.querySelectorAll(".card")).map((card) => ({
      replay: card.querySelector("pre.replay").innerText,
      heading: card.querySelector("h3").innerText,
    })),
  };
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = encodeURIComponent(JSON.stringify(findings));
  document.body.appendChild(out);
})();
