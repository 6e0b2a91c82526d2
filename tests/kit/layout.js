// Layout checks the browser tests run in the page (page.evaluate), as one object expression.
// - brokenWords(selector): words of the matched cells that a line break splits ("Scholarshi|p"),
//   found by the lines a word's text spans (a Range's rectangles). A word is a run of letters
//   and digits, a number with its dots one word ("2.4.3", "59.1"): an id may wrap only where
//   it has none of those, after its "_", "-" or a dot before a letter
//   ("latin-grammar-junior-scholarship_" / "2.4.3"). Every cell counts, in a table that
//   scrolls sideways too (scrolling never shows a broken word whole); only a word wider than
//   every line of its cell, in a cell that lets a value too long for a line break anywhere
//   (overflow-wrap: anywhere, as the board's model names and the detail's values do: a
//   checksum, a made-up name), may break.
// - cut(selector): shown elements of the matched ones that stick out of the page sideways
//   with no scrolling box around them to bring them into view, or whose text does not fit
//   their own box (a picker's chosen name, a chart's title, a label cut by its box), as short
//   descriptions.
// - clipped(selector): shown elements of the matched ones whose content a box that does not
//   scroll (overflow hidden or clip) cuts off, below or beside ("Suspected gold error" text in
//   a table cell of fixed height), as short descriptions.
// - outOfView(selector): the first matched element that is shown, unless it lies whole inside
//   the window (or, taller than the window, fills it from its top): its box and the window's.
// - contrast(selector): shown text of the matched elements (and everything inside them) whose
//   colour against what is behind it, from the computed styles, is under WCAG AA: 4.5:1 for
//   body text, 3:1 for large text (24px, or 18.66px bold); disabled controls are exempt.
// - misaligned(selector): header cells of the matched tables whose text is aligned otherwise
//   than the numbers under them ("95% CI" at the left over right-aligned numbers).
// - covered(selector): shown elements of the matched ones whose text another element lies
//   over (a label under a box's buttons), found by what the page has at the end of each line
//   of their text (elementFromPoint), as short descriptions.
// - overlapping(selector): pairs of the matched elements (a chart's labels and titles) whose
//   boxes overlap, as short descriptions.
// - recordStatus(): from now on, keeps every text a role=status region shows (screen readers
//   read them; Gradio's status tracker empties its region after a second) in
//   window.__statusTexts: an init script installs it before the page's own scripts run.
({
  brokenWords(selector) {
    const broken = [];
    for (const cell of document.querySelectorAll(selector)) {
      if (!cell.getClientRects().length) continue;  // not shown
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent;
        const style = getComputedStyle(node.parentElement);
        const anywhere = style.overflowWrap === "anywhere" || style.wordBreak === "break-all";
        const box = getComputedStyle(cell);
        const room = cell.clientWidth - parseFloat(box.paddingLeft) - parseFloat(box.paddingRight);
        for (const token of text.matchAll(/\S+/g)) {
          for (const word of token[0].matchAll(/\p{N}+(?:\.\p{N}+)+|[\p{L}\p{N}]+/gu)) {
            if (word[0].length < 2) continue;
            const range = document.createRange();
            const start = token.index + word.index;
            range.setStart(node, start);
            range.setEnd(node, start + word[0].length);
            const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
            const lines = new Set(rects.map((r) => Math.round(r.top)));
            const wide = rects.reduce((sum, r) => sum + r.width, 0) > room + 1;
            if (lines.size > 1 && !(anywhere && wide)) broken.push(`${word[0]} (in "${cell.textContent.trim().slice(0, 50)}")`);
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
      if (!el.checkVisibility({visibilityProperty: true})) continue;  // a table's sizing row
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
      } else if (/(hidden|clip)/.test(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1) {
        out.push(`${describe(el)} cut: ${el.scrollWidth}px of text in ${el.clientWidth}px`);
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

  outOfView(selector) {
    const el = Array.from(document.querySelectorAll(selector)).find((e) => e.getClientRects().length);
    if (!el) return `${selector}: not shown`;
    const box = el.getBoundingClientRect();
    const height = window.innerHeight;
    const whole = box.top >= -1 && box.bottom <= height + 1;
    const fills = box.height > height && Math.abs(box.top) <= 1;
    return whole || fills ? null : `${selector}: ${Math.round(box.top)} to ${Math.round(box.bottom)}px of a ${height}px window`;
  },

  contrast(selector) {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext("2d", {willReadFrequently: true});
    const rgba = (css) => {  // any CSS colour as [r, g, b, a] (0-255, alpha 0-1)
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = "rgba(0, 0, 0, 0)";
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
      return [r, g, b, a / 255];
    };
    const over = (top, bottom) => {  // `top` composited over an opaque `bottom`
      const a = top[3];
      return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1);
    };
    const luminance = (c) => {
      const [r, g, b] = c.slice(0, 3).map((v) => {
        const s = v / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const behind = (el) => {  // the opaque colour behind el's text, or null when unknown
      const layers = [];
      for (let up = el; up; up = up.parentElement) {
        const style = getComputedStyle(up);
        const image = style.backgroundImage;
        if (image && image !== "none") {
          if (/url\(/.test(image)) return null;
          const colours = image.match(/(rgba?|hsla?|color|oklch|lab)\([^()]*\)|#[0-9a-f]{3,8}\b/gi);
          if (colours) layers.push(rgba(colours[0]));  // a flat tint (one colour, twice)
        }
        const colour = rgba(style.backgroundColor);
        if (colour[3] > 0) layers.push(colour);
        if (layers.length && layers[layers.length - 1][3] >= 1) break;
      }
      let base = [255, 255, 255, 1];  // the canvas: the page is light (color-scheme light)
      for (const layer of layers.reverse()) base = over(layer, base);
      return base;
    };
    const out = [];
    const seen = new Set();
    for (const root of document.querySelectorAll(selector)) {
      for (const el of [root, ...root.querySelectorAll("*")]) {
        if (seen.has(el)) continue;
        seen.add(el);
        if (el.closest("svg, script, style, noscript, option, textarea, [aria-hidden=true]")) continue;
        const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
        if (!own || !el.checkVisibility({checkOpacity: true, visibilityProperty: true})) continue;
        const box = el.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1) continue;  // read by screen readers only
        if (el.closest(":disabled, [aria-disabled=true]")) continue;  // WCAG: inactive controls
        const style = getComputedStyle(el);
        let opacity = 1;
        for (let up = el; up; up = up.parentElement) opacity *= Number(getComputedStyle(up).opacity);
        const back = behind(el);
        if (!back) continue;
        const colour = rgba(style.color);
        const front = over([...colour.slice(0, 3), colour[3] * opacity], back);
        const [l1, l2] = [luminance(front), luminance(back)].sort((x, y) => y - x);
        const ratio = (l1 + 0.05) / (l2 + 0.05);
        const size = parseFloat(style.fontSize);
        const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
        const needed = large ? 3 : 4.5;
        if (ratio < needed - 0.005) {
          const text = Array.from(el.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join("").trim();
          const name = `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.classList[0] ? "." + el.classList[0] : ""}`;
          out.push(`${name} "${text.slice(0, 40)}": ${ratio.toFixed(2)}:1 (${style.color} on rgb(${back.slice(0, 3).join(", ")})), needs ${needed}:1`);
        }
      }
    }
    return out;
  },

  misaligned(selector) {
    const out = [];
    const side = (cell) => {
      const align = getComputedStyle(cell).textAlign;
      const rtl = getComputedStyle(cell).direction === "rtl";
      if (align === "center") return "center";
      if (align === "right" || (align === "end" && !rtl)) return "right";
      return "left";
    };
    for (const table of document.querySelectorAll(selector)) {
      if (!table.getClientRects().length) continue;
      const heads = table.tHead ? Array.from(table.tHead.rows[0].cells) : [];
      const rows = Array.from(table.tBodies).flatMap((b) => Array.from(b.rows));
      heads.forEach((th, col) => {
        const cells = rows.map((r) => r.cells[col]).filter((c) => c && c.textContent.trim());
        if (!cells.length) return;
        const counts = {};
        for (const s of cells.map(side)) counts[s] = (counts[s] || 0) + 1;
        const common = Object.keys(counts).reduce((a, b) => (counts[b] > counts[a] ? b : a));
        if (side(th) !== common) out.push(`${table.id || table.className} "${th.textContent.trim()}": ${side(th)} over ${common}-aligned cells`);
      });
    }
    return out;
  },

  covered(selector) {
    const out = [];
    for (const el of document.querySelectorAll(selector)) {
      if (!el.getClientRects().length) continue;
      const range = document.createRange();
      range.selectNodeContents(el);
      for (const line of Array.from(range.getClientRects()).filter((r) => r.width > 0)) {
        for (const x of [line.left + 2, line.right - 2]) {
          const hit = document.elementFromPoint(x, line.top + line.height / 2);
          if (hit && !el.contains(hit) && !hit.contains(el)) {
            out.push(`"${el.textContent.trim().slice(0, 50)}" under ${hit.tagName.toLowerCase()}${hit.className && typeof hit.className === "string" ? "." + hit.className.split(" ")[0] : ""} at x=${Math.round(x)}`);
          }
        }
      }
    }
    return out;
  },

  overlapping(selector) {
    const shown = Array.from(document.querySelectorAll(selector)).filter((e) => {
      const b = e.getBoundingClientRect();
      return b.width > 0 && b.height > 0 && e.textContent.trim();
    });
    const out = [];
    for (let i = 0; i < shown.length; i++) {
      for (let j = i + 1; j < shown.length; j++) {
        const [a, b] = [shown[i], shown[j]];
        if (a.contains(b) || b.contains(a)) continue;
        const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
        const x = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (x > 1 && y > 1) out.push(`"${a.textContent.trim().slice(0, 40)}" overlaps "${b.textContent.trim().slice(0, 40)}" (${Math.round(x)}x${Math.round(y)}px)`);
      }
    }
    return out;
  },

  recordStatus() {
    window.__statusTexts = [];
    const keep = () => {
      for (const region of document.querySelectorAll("[role=status]")) {
        const text = (region.textContent || "").trim();
        const texts = window.__statusTexts;
        if (text && texts[texts.length - 1] !== text) texts.push(text);
      }
    };
    new MutationObserver(keep).observe(document, {subtree: true, childList: true, characterData: true});
  },
})
