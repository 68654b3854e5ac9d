/* 中英对照: show the other edition's text under this page's text, cell by cell.
 *
 * The other edition of a page is the page the language switch links to, on this same site. Both
 * pages are cut the same way into text cells: the runs of text between the blocks both editions
 * share (code, printed output, pictures, tables), which are shown once. An example page has the same
 * cells in the same order in every edition (the build checks it: tensorcopy_sphinx/bilingual.py).
 * Cell k of the other page goes under cell k of this one: paragraph by paragraph when both cells are
 * made of the same kinds of blocks, else as one block after the cell. A page whose two editions do
 * not have the same number of cells shows nothing and says so. The choice is kept in localStorage,
 * so it follows the reader from page to page.
 */
(() => {
  "use strict";
  const KEY = "tensorcopy-bilingual";
  /** Blocks both editions share, shown once: code, output, pictures, tables, index thumbnails. */
  const SHARED = [
    "div[class*='highlight-']", "div.sphx-glr-script-out", "pre", "img", "svg", "table", ".table-wrapper",
    ".sphx-glr-thumbnails", ".sphx-glr-thumbcontainer", ".toctree-wrapper", ".math",
  ].join(",");
  /** Page furniture, not prose: the download links, the verified-on stamp, the folded helpers' summary. */
  const SKIP = [
    ".sphx-glr-download-link-note", ".sphx-glr-footer", ".sphx-glr-signature", ".verified-stamp", ".colab-link",
    ".bilingual-twin", "summary", "script", "style", "template",
  ].join(",");

  /** The page's text cells: lists of block elements, in document order, split at shared blocks. */
  function cells(root) {
    const found = [[]];
    const walk = (parent) => {
      for (const el of parent.children) {
        if (el.matches(SKIP)) continue;
        if (el.matches(SHARED)) {
          if (found[found.length - 1].length) found.push([]);
        } else if (el.matches("section, div.section") || el.querySelector(SHARED)) {
          walk(el);
        } else if (el.textContent.trim()) {
          found[found.length - 1].push(el);
        }
      }
    };
    walk(root);
    return found.filter((cell) => cell.length);
  }

  const shape = (cell) => cell.map((el) => el.tagName).join(" ");

  /** A copy of ``el`` from the other page to show here: no ids, no heading anchors, links that still
   * point where they pointed on the other page, and the other page's language. */
  function twin(el, base, lang) {
    const copy = document.importNode(el, true);
    copy.querySelectorAll(".headerlink").forEach((a) => a.remove());
    for (const node of [copy, ...copy.querySelectorAll("*")]) {
      node.removeAttribute("id");
      for (const attribute of ["href", "src"]) {
        const value = node.getAttribute(attribute);
        if (value !== null && !value.startsWith("#")) node.setAttribute(attribute, new URL(value, base).href);
      }
    }
    // A heading of the other page is a line of text here (this page's outline stays its own), and a
    // figure caption is the text of the caption (a <figcaption> belongs to one figure only).
    const heading = /^H\d$/.test(el.tagName);
    const block = document.createElement(heading ? "p" : "div");
    block.className = heading ? "bilingual-twin bilingual-heading" : "bilingual-twin";
    block.lang = lang;
    if (heading || el.tagName === "FIGCAPTION") block.append(...copy.childNodes);
    else block.append(copy);
    return block;
  }

  /** A cell cut at its headings: each part is a heading and the blocks under it. */
  const sections = (cell) =>
    cell.reduce((parts, el) => {
      if (!parts.length || /^H\d$/.test(el.tagName)) parts.push([]);
      parts[parts.length - 1].push(el);
      return parts;
    }, []);

  /** Put ``other`` under ``mine``: block by block when both are made of the same kinds of blocks, else
   * as one block after ``mine``. */
  function pair(mine, other, base, lang) {
    if (shape(mine) === shape(other)) {
      mine.forEach((el, i) => el.after(twin(other[i], base, lang)));
      return;
    }
    const block = document.createElement("div");
    block.className = "bilingual-twin bilingual-cell";
    block.lang = lang;
    for (const el of other) {
      const part = twin(el, base, lang);
      part.classList.remove("bilingual-twin");
      block.append(part);
    }
    mine[mine.length - 1].after(block);
  }

  /** Cell k under cell k; within a cell, heading by heading when both cells have the same headings, so
   * that one section written in more paragraphs in one edition leaves the others paragraph by paragraph. */
  function show(here, there, base, lang) {
    here.forEach((cell, k) => {
      const mine = sections(cell);
      const other = sections(there[k]);
      const headings = (parts) => parts.map((part) => part[0].tagName.replace(/^(?!H\d).*/, "")).join(" ");
      if (mine.length > 1 && headings(mine) === headings(other)) mine.forEach((part, j) => pair(part, other[j], base, lang));
      else pair(cell, there[k], base, lang);
    });
  }

  function hide() {
    document.querySelectorAll(".bilingual-twin").forEach((el) => el.remove());
  }

  async function load(button) {
    const link = document.querySelector("nav.language-switch a.language-other");
    const article = document.querySelector("article[role='main']");
    if (!link || !article || document.getElementById("search-results")) return "none";
    const base = new URL(link.getAttribute("href"), location.href);
    base.hash = "";
    const response = await fetch(base);
    if (!response.ok) throw new Error(`${base}: ${response.status}`);
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const otherArticle = page.querySelector("article[role='main']");
    if (!otherArticle) throw new Error(`${base}: no article`);
    const here = cells(article);
    const there = cells(otherArticle);
    if (here.length !== there.length) return "differs";
    if (button.getAttribute("aria-pressed") !== "true") return "off"; // turned off while loading
    hide();
    show(here, there, base, page.documentElement.lang || link.getAttribute("hreflang"));
    return "on";
  }

  async function set(button, status, on, announce) {
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? button.dataset.hide : button.dataset.show; // what pressing it will do
    try {
      localStorage.setItem(KEY, on ? "on" : "off");
    } catch (error) {
      /* storage refused (private mode): the choice lasts for this page */
    }
    let result = "off";
    if (on) {
      try {
        result = await load(button);
      } catch (error) {
        result = "failed";
      }
    } else {
      hide();
    }
    document.documentElement.classList.toggle("bilingual-on", result === "on");
    if (announce || result === "differs" || result === "failed") status.textContent = button.dataset[result] || "";
  }

  function start() {
    const button = document.querySelector("button.bilingual-toggle");
    const status = document.querySelector(".bilingual-status");
    if (!button || !status) return;
    button.addEventListener("click", () => set(button, status, button.getAttribute("aria-pressed") !== "true", true));
    let saved = null;
    try {
      saved = localStorage.getItem(KEY);
    } catch (error) {
      /* no storage: off */
    }
    if (saved === "on") set(button, status, true, false);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
