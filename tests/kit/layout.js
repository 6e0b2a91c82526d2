// Layout checks the browser tests run in the page (page.evaluate), as one object expression.
// - brokenWords(selector): words of the matched cells that a line break splits ("Scholarshi|p"),
//   found by the lines a word's text spans (a Range's rectangles); tokens that are no words
//   (links, checksums, ids, anything longer than 30 characters) are left out.
// - cut(selector): shown elements of the matched ones that stick out of the page sideways
//   with no scrolling box around them to bring them into view, or whose text does not fit
//   their own box (a picker's chosen name, a chart's title), as short descriptions.
// - clipped(selector): shown elements of the matched ones whose content a box that does not
//   scroll (overflow hidden or clip) cuts off, below or beside ("Suspected gold error" text in
//   a table cell of fixed height), as short descriptions.
({
  brokenWords(selector) {
    const broken = [];
    for (const cell of document.querySelectorAll(selector)) {
      if (!cell.getClientRects().length) continue;  // not shown
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent;
        for (const token of text.matchAll(/\S+/g)) {
          if (/[\/:@_=]/.test(token[0]) || token[0].length > 30) continue;
          for (const word of token[0].matchAll(/[\p{L}\p{N}]{2,}/gu)) {
            const range = document.createRange();
            const start = token.index + word.index;
            range.setStart(node, start);
            range.setEnd(node, start + word[0].length);
            const lines = new Set(
              Array.from(range.getClientRects())
                .filter((r) => r.width > 0)
                .map((r) => Math.round(r.top)),
            );
            if (lines.size > 1) broken.push(`${word[0]} (in "${cell.textContent.trim().slice(0, 50)}")`);
          }
        }
      }
    }
    return broken;
  },

  cut(selector) {
    const width = document.documentElement.clientWidth;
    const scrolls = (el) => {
      for (let up = el.parentElement; up; up = up.parentElement) {
        const style = getComputedStyle(up);
        if (/(auto|scroll)/.test(style.overflowX) && up.scrollWidth > up.clientWidth + 1) {
          return true;
        }
      }
      return false;
    };
    const describe = (el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""} "${(el.textContent || el.value || "").trim().slice(0, 50)}"`;
    const out = [];
    if (document.documentElement.scrollWidth > width + 1) {
      out.push(`the page is ${document.documentElement.scrollWidth}px wide in a ${width}px window`);
    }
    const canvas = document.createElement("canvas").getContext("2d");
    for (const el of document.querySelectorAll(selector)) {
      const box = el.getBoundingClientRect();
      if (!box.width || !el.getClientRects().length) continue;
      if ((box.right > width + 1 || box.left < -1) && !scrolls(el)) out.push(`${describe(el)} sticks out`);
      if (el.tagName === "SELECT" && el.selectedOptions.length) {
        const style = getComputedStyle(el);
        canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        const text = el.selectedOptions[0].textContent;
        if (canvas.measureText(text).width > room + 1) out.push(`${describe(el)} shows "${text}" cut`);
      }
      if (el instanceof SVGGraphicsElement) {
        const svg = el.ownerSVGElement.getBoundingClientRect();
        if (box.right > svg.right + 1 || box.left < svg.left - 1) out.push(`${describe(el)} cut by its chart`);
      }
    }
    return out;
  },

  clipped(selector) {
    const out = [];
    for (const el of document.querySelectorAll(selector)) {
      const box = el.getBoundingClientRect();
      if (!box.width || !box.height || !el.getClientRects().length) continue;
      const style = getComputedStyle(el);
      const tall = /(hidden|clip)/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1;
      const wide = /(hidden|clip)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
      if (tall || wide) {
        const text = (el.textContent || "").trim().slice(0, 50);
        out.push(`${el.tagName.toLowerCase()}.${el.classList[0] || ""} "${text}" cut ${tall ? "below" : "beside"} (${el.scrollHeight}x${el.scrollWidth} in ${el.clientHeight}x${el.clientWidth})`);
      }
    }
    return out;
  },
})
