// The search page's results, from the edition's Pagefind index (sitetools/web/search.py).
//
// Every word of the query counts: each word is looked up on its own, and a page scores the sum, over
// the words it holds, of two parts: Pagefind's score for the word on that page, saturated (log 1 + s;
// the score already weighs a rare word, and titles, answer boxes, headings and readers' words above
// body text), and half the word's rarity (a word few pages hold counts more than "the" or 的) times its
// relevance on that page relative to the page where it is most relevant. So each word a page matches
// adds to its score, and a page that matches one word often cannot outrank a page that matches it and
// the query's other words, unless those are words most pages hold. Words that only ask or join (why,
// the, 怎么, 的) are dropped. (Ranking by the number of words matched first was tried: it put long
// reference pages, which hold every word somewhere, above the page that answers, for 11 of 67 real
// Chinese queries. Ranking the best pages again by how close their words lie moved one query of 134
// and cost 100 to 200 ms on a phone: not kept. The saturated score was chosen on the real-question set
// and its held-out companion, tests/real_questions*.toml.)
// A word no page holds does not empty the list: the results name it. A run of Chinese characters is
// cut into the words of the edition's vocabulary, the words at which the build cut its pages. Each
// result leads to the section of the page that matches most of the words, with an excerpt that marks
// them. Typing in the sidebar's search box searches again on this page.
// The words shown come from the page (data-* attributes of #search-results, in the edition's language).
// A classic script, not a module: opened from the disk, a module is refused before it runs, and the
// page could not say what it needs.

(() => {
const box = document.getElementById("search-results");
const lang = document.documentElement.lang || "en";
const SHOWN = 10; // results shown at first; "More results" shows the next ones
const LISTED = 0.1; // a page is listed if it scores at least this share of the best page's score
const FEW = 5; // a word found on this many pages or fewer is checked against their text
const say = (name, values = {}) => box.dataset[name].replace(/\{(\w+)\}/g, (_, key) => values[key] ?? "");
const HAN = /\p{Script=Han}/u;

// Words that ask or join rather than name (怎么, 为什么, 的; why, the, is, too): every page holds them, so
// a page that holds them is no answer. They are dropped from a query that has other words; a pasted
// message still finds its page as a phrase, with them.
const STOP_WORDS = new Set([
  "怎么", "怎样", "如何", "为什么", "为何", "什么", "一个", "的", "了", "是", "吗", "呢", "和",
  "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "its",
  "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
  "will", "with", "what", "why", "how", "when", "where", "which", "who", "does", "do", "did", "i", "my",
  "me", "we", "you", "your", "can", "could", "should", "would", "too", "much", "very", "so", "just",
  "between", "about",
]);

/** The query's words: split at spaces; a run of Chinese characters is cut into the longest words of the
 *  edition's vocabulary (the words jieba found in its pages), the rest by the browser's segmenter. */
function queryWords(query, known = new Set()) {
  const segmenter = new Intl.Segmenter(lang, { granularity: "word" });
  const words = [];
  for (const part of query.split(/\s+/)) {
    for (const run of part.match(/\p{Script=Han}+|[^\p{Script=Han}]+/gu) || []) {
      if (!HAN.test(run)) {
        if (/[\p{L}\p{N}]/u.test(run)) words.push(run);
        continue;
      }
      let rest = "";
      const flush = () => {
        for (const piece of segmenter.segment(rest)) if (piece.isWordLike) words.push(piece.segment);
        rest = "";
      };
      for (let start = 0; start < run.length; ) {
        let end = Math.min(run.length, start + 8);
        while (end > start + 1 && !known.has(run.slice(start, end))) end -= 1;
        if (end > start + 1) {
          flush();
          words.push(run.slice(start, end));
        } else {
          rest += run[start];
        }
        start = end;
      }
      flush();
    }
  }
  const unique = [...new Set(words)];
  const named = unique.filter((word) => !STOP_WORDS.has(word.toLowerCase()));
  return named.length ? named : unique;
}

const bundle = (name) => new URL(`pagefind/${name}`, new URL(".", location.href)).href;
let module = null;
let pageCount = 1;
let vocabulary = new Set();
const synonyms = new Map(); // a word -> the words of its term (the terminology list), itself included
const engines = []; // the Pagefind instances of the latest queries, newest last
/** A Pagefind instance of its own for each query. The words Pagefind matches depend on the index chunks
 *  that earlier searches loaded into an instance (its issues 674 and 795: a word stored beside a chunk's
 *  edge is found only once that chunk is loaded), so a second query on this page would not be answered
 *  as the same query on a fresh page; tests/test_search_and_switch.py asks the same query both ways. The
 *  instance before the previous one is let go (an instance serves its results' excerpts and "More results"
 *  only while its list shows); the next query's instance is started once this query's results show, so
 *  that it is ready when the reader types again and does not compete with this query for the network. */
async function engine() {
  if (!module) {
    const [loaded, entry, words] = await Promise.all([
      import(bundle("pagefind.js")),
      fetch(bundle("pagefind-entry.json")).then((response) => response.json()),
      box.dataset.vocabulary ? fetch(bundle("vocabulary.json")).then((response) => response.json()) : null,
    ]);
    vocabulary = new Set(words?.words || []);
    for (const group of words?.same || []) for (const word of group) synonyms.set(word, group);
    pageCount = Math.max(1, ...Object.values(entry.languages).map((language) => language.page_count));
    module = loaded;
  }
  const find = spare || started();
  spare = null;
  engines.push(find);
  if (engines.length > 2) engines.shift().destroy();
  return find;
}
let spare = null; // the next query's instance, started by ready()
const ready = () => {
  if (module && !spare) spare = started();
};
const started = () => {
  const find = module.createInstance({ baseUrl: "/" });
  find.init();
  return find;
};

// A Chinese word as the index holds it, and back (sitetools/web/search.py, encoded()).
const encoded = (word) => (HAN.test(word) ? `zh${[...word].map((char) => char.codePointAt(0)).join("x")}` : word);
const decoded = (text) =>
  text.replace(/zh(\d+(?:x\d+)*)/g, (_, codes) => String.fromCodePoint(...codes.split("x").map(Number)));

/** The call of a call on a short name (``cuda()`` of ``a.cuda()``), or undefined. */
const callName = (word) => word.match(/^[a-z]{1,2}\d?\.([\p{L}_].*)$/u)?.[1];

/** The pages that hold a word or another word of its term, each with its best score, best first. */
async function lookup(find, word) {
  let group = synonyms.get(word) || [word];
  let searches = await Promise.all(group.map((each) => find.search(encoded(each))));
  // A call on a short name (a.cuda(), p.grad) that the best page does not hold is Pagefind's loose match
  // of its first letters: the call on any name (cuda()) is looked up instead.
  const onName = callName(word);
  const top = onName && searches[0].results[0];
  if (onName && !(top && (await top.data()).content.toLowerCase().includes(word.toLowerCase()))) {
    group = [onName];
    searches = [await find.search(onName)];
  }
  const best = new Map();
  for (const result of searches.flatMap((search) => search.results)) {
    if (!best.has(result.id) || best.get(result.id).score < result.score) best.set(result.id, result);
  }
  let results = [...best.values()].sort((a, b) => b.score - a.score);
  // Pagefind answers a word it does not hold with loose matches (qqxyzzy finds a page that says qq_2782;
  // 磁盘, which no page held, found ten pages): a page counts only if its text holds a word that starts as
  // this one does (a Chinese word: all its characters; another: its first four letters). Every result is
  // checked when there are few; else the best one, and every result when it fails.
  const starts = group.map((each) => (HAN.test(each) ? encoded(each) : encoded(each).toLowerCase().slice(0, 4)));
  const holds = async (result) => {
    const text = (await result.data()).content.toLowerCase();
    return starts.some((start) => new RegExp(`(^|[^\\p{L}\\p{N}_])${start.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "u").test(text));
  };
  if (results.length <= FEW || (results.length && !(await holds(results[0])))) {
    const held = await Promise.all(results.map(holds));
    results = results.filter((_, i) => held[i]);
  }
  return { results };
}

/** Each word's data for a page, in the order of its hits: one word at a time, as Pagefind keeps one
 *  fragment per page and writes a word's locations, sections and excerpt into it (data() of two words'
 *  results at once gives both the sections of the word whose data came last). */
function located(page) {
  page.located ||= page.hits.reduce(async (before, hit) => {
    const done = await before;
    const { meta, url, excerpt, sub_results } = await hit.result.data();
    return [...done, { meta, url, excerpt, sub_results }];
  }, Promise.resolve([]));
  return page.located;
}

/** Rank the pages for a query: ``{pages, unmatched, words}``, pages best first. */
async function rank(query) {
  const find = await engine();
  const words = queryWords(query, vocabulary);
  // A query of three words or more is also looked up as it is typed, as a phrase: a pasted error
  // message finds the page that quotes it.
  const phrase = words.length > 2 && !HAN.test(query) ? `"${query.replace(/"/g, " ").trim()}"` : null;
  // Every index chunk that the query's searches need is loaded before any of them runs: Pagefind matches a
  // word against the chunks loaded so far, so searches that raced each other's loading would list pages
  // that vary from one run of the same query to the next.
  const terms = words.flatMap((word) => [...(synonyms.get(word) || [word]).map(encoded), callName(word)]);
  await Promise.all([phrase, ...terms].filter(Boolean).map((term) => find.preload(term)));
  const [exact, ...found] = await Promise.all([
    phrase ? find.search(phrase) : { results: [] },
    ...words.map((word) => lookup(find, word)),
  ]);
  const pages = new Map();
  words.forEach((word, i) => {
    const results = found[i].results;
    if (!results.length) return;
    const best = results[0].score || 1;
    const rarity = Math.log(1 + pageCount / results.length); // a word few pages hold counts more
    for (const result of results) {
      const page = pages.get(result.id) || { id: result.id, weight: 0, hits: [] };
      // Pagefind's own score (rarity and frequency in it), saturated, plus the word's rarity times its
      // relevance here relative to the page where it is most relevant.
      page.weight += Math.log(1 + result.score) + 0.5 * rarity * (result.score / best);
      page.hits.push({ word, rarity, result });
      pages.set(result.id, page);
    }
  });
  const whole = words.reduce((sum, _, i) => sum + Math.log(1 + pageCount / Math.max(1, found[i].results.length)), 0);
  for (const result of exact.results) {
    const page = pages.get(result.id);
    if (page) page.weight += whole; // as much again as a page that is the best for every word
  }
  const sorted = [...pages.values()].sort((a, b) => b.weight - a.weight || (a.id < b.id ? -1 : 1));
  // Pages that score under a tenth of the best hold only the query's most common words: not listed.
  const ranked = sorted.filter((page) => page.weight >= sorted[0].weight * LISTED);
  return { pages: ranked, words, unmatched: words.filter((_, i) => !found[i].results.length) };
}

/** The section of a page that matches most of the query's words, with its excerpt. */
async function section(page) {
  const datas = await located(page);
  const sections = new Map();
  datas.forEach((data, i) => {
    const { word, rarity } = page.hits[i];
    for (const sub of data.sub_results.length ? data.sub_results : [data]) {
      const found = sections.get(sub.url) || { sub, words: new Set(), score: 0 };
      found.words.add(word);
      found.score += rarity * (sub.weighted_locations || []).reduce((sum, at) => sum + at.balanced_score, 0);
      sections.set(sub.url, found);
    }
  });
  const [best] = [...sections.values()].sort((a, b) => b.words.size - a.words.size || b.score - a.score);
  return { data: datas[0], sub: best.sub };
}

/** Text with the query's words marked, as DOM nodes (the excerpt's own markup is dropped): a Chinese
 *  word wherever it occurs, another of two or three letters as a whole word, a longer one where a word
 *  starts with it. */
function marked(text, words) {
  const fragment = document.createDocumentFragment();
  const escape = (word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const patterns = words
    .filter((word) => HAN.test(word) || word.length > 1)
    // A short word (an, of, by) only whole, else it marks the start of "and", "offset", "bytes".
    .map((word) => (HAN.test(word) ? escape(word) : `(?<![\\p{L}\\p{N}_])${escape(word)}${word.length > 3 ? "" : "(?![\\p{L}\\p{N}_])"}`));
  const pattern = patterns.length ? new RegExp(`(${patterns.join("|")})`, "giu") : null;
  const parts = pattern ? text.split(pattern) : [text];
  parts.forEach((part, i) => {
    if (!part) return;
    if (i % 2) {
      const mark = document.createElement("mark");
      mark.textContent = part;
      fragment.append(mark);
    } else {
      fragment.append(part);
    }
  });
  return fragment;
}

// The index of a Chinese edition holds its words apart with spaces (sitetools/web/search.py): Chinese
// text has none between two of its characters or its punctuation. A heading's "¶" (its link) is
// not part of its title.
const CJK = "\\p{Script=Han}\\u2018-\\u201f\\u2026\\u3000-\\u303f\\uff00-\\uffef";
const CJK_SPACE = new RegExp(`(?<=[${CJK}])\\s+(?=[${CJK}])`, "gu");
const plain = (html) => {
  const text = new DOMParser().parseFromString(html, "text/html").body.textContent.replace(/¶/g, "");
  return (box.dataset.vocabulary ? decoded(text).replace(CJK_SPACE, "") : text).trim();
};
const link = (url) => new URL(url.replace(/^\//, ""), new URL(".", location.href)).href;

// The readers' words the index adds after a heading, between ⟦ and ⟧ (sitetools/web/search.py): they
// find the page, but the excerpt shows the page's own text. An excerpt may start or end inside them.
const READERS_WORDS = /\u27e6[^\u27e6\u27e7]*\u27e7|^[^\u27e6\u27e7]*\u27e7|\u27e6[^\u27e6\u27e7]*$/g;
const ownText = (text) => text.replace(READERS_WORDS, " ").replace(/\s+/g, " ").trim();

async function item(page, words) {
  const { data, sub } = await section(page);
  const li = document.createElement("li");
  const a = document.createElement("a");
  a.href = link(sub.url || data.url);
  a.textContent = plain(data.meta.title);
  li.append(a);
  const sectionTitle = sub.title && sub.title !== data.meta.title ? plain(sub.title) : "";
  if (sectionTitle) {
    const where = document.createElement("span");
    where.className = "search-section";
    where.textContent = ` › ${sectionTitle}`;
    li.append(where);
  }
  const excerpt = document.createElement("p");
  excerpt.className = "context";
  excerpt.append(marked(ownText(plain(sub.excerpt || data.excerpt)), words));
  li.append(excerpt);
  return li;
}

let current = 0; // the latest search; an older one that finishes later is dropped
async function show(query) {
  const ticket = ++current;
  const started = performance.now();
  box.replaceChildren();
  const summary = document.createElement("p");
  summary.className = "search-summary";
  summary.setAttribute("role", "status"); // read out when the results are there
  box.append(summary);
  if (!query) {
    summary.textContent = say("empty");
    box.dataset.ms = "0";
    return;
  }
  if (location.protocol === "file:") {
    summary.textContent = say("file");
    return;
  }
  summary.textContent = say("searching");
  let ranked;
  try {
    ranked = await rank(query);
  } catch (error) {
    summary.textContent = say("failed");
    throw error;
  }
  const list = document.createElement("ul");
  list.className = "search";
  const more = async (from) => {
    const items = await Promise.all(ranked.pages.slice(from, from + SHOWN).map((page) => item(page, ranked.words)));
    if (ticket !== current) return;
    list.append(...items);
    box.querySelector("button.search-more")?.remove();
    if (ranked.pages.length > from + SHOWN) {
      const button = document.createElement("button");
      button.className = "search-more";
      button.type = "button";
      button.textContent = say("more");
      button.addEventListener("click", () => {
        button.remove(); // at once: a second click must not add the same results again
        more(from + SHOWN).then(() => list.children[from + SHOWN]?.querySelector("a")?.focus());
      });
      box.append(button);
    }
  };
  await more(0);
  if (ticket !== current) return;
  const count = String(ranked.pages.length);
  const lines = [say(ranked.pages.length ? "found" : "none", { count, query })];
  if (ranked.unmatched.length) lines.push(say("unmatched", { words: ranked.unmatched.join(say("separator")) }));
  summary.textContent = lines.join(" ");
  box.insertBefore(list, summary.nextSibling);
  box.dataset.ms = String(Math.round(performance.now() - started)); // read by the tests' timing check
  ready();
}

// The page's own search box (on a phone the sidebar's is out of sight) and the sidebar's search as the
// reader types; a pause in typing, or Enter (without reloading the page), is a step of the browser's
// history, and Back shows the previous one.
const PAUSE = 150; // ms without a keystroke that end a query
const inputs = [...document.querySelectorAll("input[name=q]")];
const fill = (query) => inputs.forEach((input) => (input.value = query));
let typing = null;
let asked = null; // the query shown last, so that Enter after a pause does not search it again
const ask = (input) => {
  clearTimeout(typing);
  const query = input.value.trim();
  if (query === asked) return;
  asked = query;
  history.pushState(null, "", `?q=${encodeURIComponent(query)}`);
  inputs.filter((other) => other !== input).forEach((other) => (other.value = input.value));
  show(query);
};
for (const input of inputs) {
  input.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => ask(input), PAUSE);
  });
  input.form?.addEventListener("submit", (event) => {
    event.preventDefault();
    ask(input);
  });
}
const fromAddress = () => (new URLSearchParams(location.search).get("q") || "").trim();
window.addEventListener("popstate", () => {
  asked = fromAddress();
  fill(asked);
  show(asked);
});
asked = fromAddress();
fill(asked);
show(asked);
})();
