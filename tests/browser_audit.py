"""The browser audit of a built site: every page shown once in headless Chromium, several at a time in
one browser, and checked in each view that adds information (axe-core rules per view, requests to
other hosts, failed requests, console errors). tests/test_page_visits.py runs it on the site and on
pages made bad on purpose; the static checkers are in tests/site_audit.py.
"""

import os
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from tests.site_audit import AXE_JS, DEAD_PROXY, EVERY_SECTION_LAID_OUT, WCAG_TAGS, html_pages, is_local_request


@dataclass
class AxeViolation:
    rule: str
    impact: str
    help: str
    targets: list[str]

    def __str__(self) -> str:
        shown = ", ".join(self.targets[:3]) + (" ..." if len(self.targets) > 3 else "")
        return f"{self.rule} ({self.impact}): {self.help} at {shown}"


# --- One load per page: axe-core in every view, requests and console ---------------------------

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}

#: Every WCAG 2.1 A/AA rule of axe-core (the tags above).
ALL_RULES = None
#: Every such rule but the colour rules.
NOT_COLOUR = "all but colour"
#: The rules whose outcome depends on colours: all that the dark theme can change on a page.
COLOUR_RULES = ("color-contrast", "link-in-text-block")
#: The rule whose outcome depends on the width of the screen for a page's own content.
LAYOUT_RULES = ("scrollable-region-focusable",)


@dataclass(frozen=True)
class View:
    """A way of showing a page: the colour scheme and screen size, the axe rules every page gets in
    it (None: all; :data:`NOT_COLOUR`: all but the colour rules), whether the colour rules follow on a
    page that shows a new colour combination, and the browser context it is shown in."""

    name: str
    color_scheme: str
    viewport: dict
    rules: tuple[str, ...] | str | None
    colour_when_new: bool = False
    context: str = "wide"


#: The browser contexts the views are shown in. ``phone`` emulates the device (touch, mobile
#: viewport); ``wide`` is a desktop window whose colour scheme and size change between views.
CONTEXTS = {
    "wide": {"viewport": DESKTOP, "color_scheme": "light", "proxy": DEAD_PROXY},
    "phone": {"viewport": PHONE, "is_mobile": True, "has_touch": True, "color_scheme": "light", "proxy": DEAD_PROXY},
}

#: The views that add information, and why each checks what it checks.
#:
#: * ``wide-light``: every rule but the colour rules on every page. The reference: a page's DOM,
#:   ARIA, names, labels, landmarks and language do not depend on the screen or the colour scheme.
#: * ``wide-light`` and ``wide-dark``, colours: the colour rules (contrast, links told apart from
#:   text) judge each text by its colour, its font, its link styling and the backgrounds of the boxes
#:   it sits in. A page gets them in a view when it shows a combination of these (a *colour
#:   signature*, see ``_START``) that no page has shown in that view before; every page's
#:   signatures are kept, so a test proves that every combination on the site was audited. (furo's
#:   dark theme swaps CSS colour variables and the Pygments style, so the dark view has signatures
#:   of its own.) The colour rules cost more than all the other rules together.
#: * ``phone-width``: the same tab at 375 px. What changes with a page's own content is which code
#:   blocks and tables overflow and scroll, so every page gets the layout rule.
#: * ``phone``: a phone (touch, mobile viewport). The chrome changes (a mobile header; the sidebar
#:   and the table of contents become drawers), the same on every page of a template: the
#:   representative pages get every rule, in a tab of their own. They get every rule in the dark
#:   view too, for the chrome (the icon of the theme button).
#:
#: The first three are shown one after the other in one load of the page (the colour scheme and the
#: size change in place, as when a reader turns the phone or the theme), so each page loads once.
VIEWS = {
    "wide-light": View("wide-light", "light", DESKTOP, NOT_COLOUR, colour_when_new=True),
    "wide-dark": View("wide-dark", "dark", DESKTOP, (), colour_when_new=True),
    "phone-width": View("phone-width", "light", PHONE, LAYOUT_RULES),
    "phone": View("phone", "light", PHONE, ALL_RULES, context="phone"),
}

#: A search whose results page is visited too (results are added by script, with highlights).
SEARCHES = {"en": "tensor", "zh_CN": "张量"}
SEARCH_SUMMARY = "#search-results p.search-summary"
#: How long a search results page may take to show its summary before the visit fails.
READY_TIMEOUT_MS = 15_000
#: A page is left only after this long without a request (Playwright's "networkidle"), so that
#: late requests (fonts, scripts that scripts add) are seen too.
QUIET_S = 0.5
#: A page that takes longer than this to load, audit and go quiet fails its visit.
VISIT_TIMEOUT_S = 60


@dataclass(frozen=True)
class PagePlan:
    """One load of one page, the views it is shown in, in order, and the axe rules each runs (None:
    every WCAG rule). ``ready``: a selector whose element must show text before the first audit."""

    url: str
    steps: tuple[tuple[str, tuple[str, ...] | None], ...]
    ready: str | None = None

    @property
    def context(self) -> str:
        return VIEWS[self.steps[0][0]].context


@dataclass
class PageVisit:
    """What one load of one page showed: axe violations per view, requests, console."""

    plan: PagePlan
    violations: dict[str, list[AxeViolation]] = field(default_factory=dict)
    backgrounds: dict[str, str] = field(default_factory=dict)  # computed <body> colour per view
    signatures: dict[str, frozenset] = field(default_factory=dict)  # colour signatures per view
    rules_run: dict[str, tuple[str, ...] | str | None] = field(default_factory=dict)  # per view
    outside: list[str] = field(default_factory=list)  # requests to other hosts (none got out)
    failed: list[str] = field(default_factory=list)  # local requests that failed or gave >= 400
    console: list[str] = field(default_factory=list)  # console errors and uncaught exceptions
    errors: list[str] = field(default_factory=list)  # the visit itself went wrong (load, audit)

    @property
    def url(self) -> str:
        return self.plan.url


def representatives(urls: list[str]) -> set[str]:
    """The pages that stand for their template and kind: the landing page and, per edition, the
    home page, the gallery index, the search page (also with results) and the
    first example page."""
    chosen = {url for url in urls if url.split("?")[0].rsplit("/", 1)[-1] in REPRESENTATIVE_NAMES}
    examples = sorted(url for url in urls if "/plot_" in url)
    for lang in {url.split("/")[0] for url in examples}:
        chosen.add(next(url for url in examples if url.startswith(f"{lang}/")))
    return chosen


REPRESENTATIVE_NAMES = ("index.html", "search.html")


def plan_visits(site: Path) -> list[PagePlan]:
    """Every page of the built site, plus one search with results per edition: one load each in
    the wide window (light, dark, phone width), and a second in a phone for the representatives."""
    ready = dict.fromkeys(path.relative_to(site).as_posix() for path in html_pages(site))
    for lang, query in SEARCHES.items():
        if (site / lang / "search.html").is_file():
            ready[f"{lang}/search.html?q={quote(query)}"] = SEARCH_SUMMARY
    chosen = representatives(list(ready))
    plans = []
    for url, selector in ready.items():
        full = url in chosen
        steps = [(name, ALL_RULES if full else view.rules) for name, view in VIEWS.items() if view.context == "wide"]
        plans.append(PagePlan(url, tuple(steps), selector))
        if full:
            plans.append(PagePlan(url, (("phone", ALL_RULES),), selector))
    return plans


#: Started in the page without waiting for the result: wait for ``ready`` (if any), then either
#: collect the page's colour signatures (``rules`` is "signatures") or check the rule names and run
#: axe (``rules``: a list of rules, null for all, or "all but colour"); ``window.__siteAudit`` holds
#: the state and then the result, for polling.
#:
#: A colour signature is what the colour rules judge a text by: its colour and font, the colours
#: and images of the boxes it sits in up to the first opaque one, the opacity above it, and for a
#: link the colour of the text around it and how it is underlined, bordered, weighted or slanted.
#: The text of form controls (a search box's value) counts as text. Not modelled: a text painted
#: over a box that is not one of its ancestors (a positioned box behind it). On this site the
#: positioned boxes hold no text over other text (the sticky first column of the matrix has its own
#: opaque background; the copy button shows no text; the back-to-top button is hidden until one
#: scrolls), and a page that introduced one would have to be judged by hand.
_START = """([rules, tags, ready, timeout, colourRules]) => {
  const audit = window.__siteAudit = {state: 'running'};
  const opaque = colour => colour.startsWith('rgb(');
  const signatures = () => {
    const boxes = new Map();  // element -> its backgrounds up to the first opaque one, and opacity
    const box = element => {
      if (!element) return {layers: '', opacity: 1};
      if (!boxes.has(element)) {
        const style = getComputedStyle(element);
        const outer = opaque(style.backgroundColor) ? {layers: '', opacity: 1} : box(element.parentElement);
        const parent = element.parentElement ? box(element.parentElement) : {opacity: 1};
        boxes.set(element, {
          layers: `${style.backgroundColor} ${style.backgroundImage} / ${outer.layers}`,
          opacity: parseFloat(style.opacity) * parent.opacity,
        });
      }
      return boxes.get(element);
    };
    const found = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      if (!element || !node.data.trim() || !element.getClientRects().length) continue;
      const style = getComputedStyle(element);
      if (style.visibility !== 'visible') continue;
      const place = box(element);
      let signature = [style.color, style.fontSize, style.fontWeight, style.textShadow, place.layers,
                       place.opacity.toFixed(2)].join(' | ');
      const link = element.closest('a');
      if (link) {
        const around = getComputedStyle(link.parentElement || link);
        const own = getComputedStyle(link);
        signature += ` | link in ${around.color} ${around.display} ${own.textDecorationLine} ` +
                     `${own.borderBottomStyle} ${own.borderBottomWidth} ${own.fontWeight} ${own.fontStyle}`;
      }
      found.add(signature);
    }
    for (const control of document.querySelectorAll('input, textarea, select')) {
      if (!control.getClientRects().length || !(control.value || control.placeholder)) continue;
      const style = getComputedStyle(control);
      const place = box(control);
      found.add(['control', style.color, style.fontSize, style.fontWeight, place.layers,
                 place.opacity.toFixed(2)].join(' | '));
    }
    return [...found].sort();
  };
  (async () => {
    if (ready) {
      const until = Date.now() + timeout;
      const shown = () => (document.querySelector(ready)?.innerText || '').trim() !== '';
      while (!shown()) {
        if (Date.now() > until) throw new Error(`${ready} shows nothing after ${timeout} ms`);
        await new Promise(resolve => setTimeout(resolve, 50));
      }
    }
    const background = getComputedStyle(document.body).backgroundColor;
    if (rules === 'signatures') return {signatures: signatures(), background};
    const known = new Set(axe.getRules(tags).map(rule => rule.ruleId));
    const unknown = (Array.isArray(rules) ? rules : []).filter(rule => !known.has(rule));
    if (unknown.length) throw new Error(`not a WCAG 2.1 A/AA rule of axe-core: ${unknown}`);
    const only = Array.isArray(rules) ? {type: 'rule', values: rules} : {type: 'tag', values: tags};
    const off = rules === 'all but colour' ? Object.fromEntries(colourRules.map(r => [r, {enabled: false}])) : {};
    const result = await axe.run(document, {runOnly: only, rules: off, resultTypes: ['violations']});
    return {
      violations: result.violations.map(v => ({
        rule: v.id, impact: v.impact || '?', help: v.help,
        targets: v.nodes.map(node => node.target.map(String).join(' ')),
      })),
      background,
    };
  })().then(
    result => Object.assign(audit, {state: 'done', result}),
    error => Object.assign(audit, {state: 'error', error: String(error)}),
  );
}"""
_POLL = "() => { const a = window.__siteAudit; return a && a.state !== 'running' ? a : null; }"


def with_colour(rules: tuple[str, ...] | str | None) -> tuple[str, ...] | None:
    """``rules`` and the colour rules."""
    if rules is ALL_RULES or rules == NOT_COLOUR:
        return ALL_RULES
    return tuple(dict.fromkeys((*rules, *COLOUR_RULES)))


def pool_size() -> int:
    """How many tabs work at once: twice the cores, so that the cores stay busy while some tabs
    load or wait for their page to go quiet."""
    return 2 * (os.cpu_count() or 2)


class _Tab:
    """One browser tab of the pool and the page visit it is busy with."""

    def __init__(self, context, name: str, audited: dict[str, set]):
        self.context_name = name
        self.page = context.new_page()
        self.audited = audited  # per view: the colour signatures the colour rules ran on, in any tab
        self.visit: PageVisit | None = None
        self.number = 0  # the visit's place among the plans
        self.step = 0
        self.signing = False  # the current step is collecting colour signatures, not auditing
        self.waited = False  # the visit has waited for its plan's ready selector
        self.started = 0.0
        self.inflight = 0
        self.last_request = 0.0
        page = self.page
        page.on("request", self._request)
        page.on("requestfinished", self._settled)
        page.on("requestfailed", self._failed)
        page.on("response", self._response)
        page.on("console", self._console)
        page.on("pageerror", lambda e: self._note("console", f"uncaught: {e}"))

    def _note(self, attribute: str, text: str) -> None:
        if self.visit is not None:
            getattr(self.visit, attribute).append(text)

    def _console(self, message) -> None:
        # Chromium asks every new tab's server for /favicon.ico by itself; the page asked for none.
        if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico"):
            self._note("console", f"console.error: {message.text} ({message.location.get('url')})")

    def _request(self, request) -> None:
        self.inflight += 1
        self.last_request = time.monotonic()
        if not is_local_request(request.url):
            self._note("outside", request.url)

    def _settled(self, request) -> None:
        self.inflight = max(0, self.inflight - 1)
        self.last_request = time.monotonic()

    def _failed(self, request) -> None:
        self._settled(request)
        if is_local_request(request.url):
            self._note("failed", f"failed {request.url}")

    def _response(self, response) -> None:
        if response.status >= 400:
            self._note("failed", f"{response.status} {response.url}")

    def begin(self, base_url: str, plan: PagePlan) -> None:
        from playwright.sync_api import Error as PlaywrightError

        self.visit, self.step, self.started, self.waited = PageVisit(plan), 0, time.monotonic(), False
        self.inflight, self.last_request = 0, self.started
        try:
            self._show(VIEWS[plan.steps[0][0]])
            self.page.goto(f"{base_url}/{plan.url}", wait_until="load")
            self._start_step()
        except PlaywrightError as error:
            self.visit.errors.append(f"could not load and audit: {error.message.splitlines()[0]}")
            self.step = len(plan.steps)

    def _show(self, view: View) -> None:
        self.page.emulate_media(color_scheme=view.color_scheme)
        if self.page.viewport_size != view.viewport:
            self.page.set_viewport_size(view.viewport)

    def _start(self, rules) -> None:
        """Start ``rules`` in the page: "signatures", or the axe rules; a visit's first task waits
        for the plan's ``ready`` selector."""
        ready, self.waited = (None if self.waited else self.visit.plan.ready), True
        rules = list(rules) if isinstance(rules, tuple) else rules
        self.page.evaluate(_START, [rules, WCAG_TAGS, ready, READY_TIMEOUT_MS, list(COLOUR_RULES)])

    def _start_step(self) -> None:
        """A view that adds the colour rules to a page with new colour signatures collects them first."""
        view = VIEWS[self.visit.plan.steps[self.step][0]]
        self.signing = view.colour_when_new
        if self.signing:
            self._start("signatures")
        else:
            self._audit(self.visit.plan.steps[self.step][1])

    def _audit(self, rules) -> None:
        """Run ``rules`` in the current view; with no rule to run, the step is done at once."""
        self.signing = False
        view = self.visit.plan.steps[self.step][0]
        self.visit.rules_run[view] = rules
        if rules == ():
            self.visit.violations[view] = []
            self._next_step()
        else:
            self._start(rules)

    def _signed(self, result: dict) -> None:
        """Colour signatures in: the colour rules run when the page shows one that no audit covered."""
        view, rules = self.visit.plan.steps[self.step]
        signatures = frozenset(result["signatures"])
        self.visit.signatures[view] = signatures
        self.visit.backgrounds[view] = result["background"]
        if rules is ALL_RULES or not signatures <= self.audited[view]:
            self.audited[view] |= signatures  # before the audit ends: a failed audit fails the visit
            rules = with_colour(rules)
        self._audit(rules)

    def _next_step(self) -> None:
        self.step += 1
        if self.step < len(self.visit.plan.steps):
            self._show(VIEWS[self.visit.plan.steps[self.step][0]])
            self._start_step()

    def advance(self) -> bool:
        """Move the visit on if its audit has finished; True when the whole visit is done."""
        from playwright.sync_api import Error as PlaywrightError

        plan, now = self.visit.plan, time.monotonic()
        if now - self.started > VISIT_TIMEOUT_S:
            self.visit.errors.append(f"not done after {VISIT_TIMEOUT_S} s")
            return True
        if self.step >= len(plan.steps):  # audits done: wait until the page is quiet
            return self.inflight == 0 and now - self.last_request >= QUIET_S
        try:
            audit = self.page.evaluate(_POLL)
            if audit is None:
                return False
            view = plan.steps[self.step][0]
            if audit["state"] == "error":
                self.visit.errors.append(f"{view}: the audit failed: {audit['error']}")
                self._next_step()
            elif self.signing:
                self._signed(audit["result"])
            else:
                result = audit["result"]
                self.visit.violations[view] = [AxeViolation(**v) for v in result["violations"]]
                self.visit.backgrounds[view] = result["background"]
                self._next_step()
        except PlaywrightError as error:
            self.visit.errors.append(f"the audit failed: {error.message.splitlines()[0]}")
            self.step = len(plan.steps)
        return False


def visit_pages(browser, base_url: str, plans: list[PagePlan], pool: int | None = None) -> list[PageVisit]:
    """Load every planned page once and audit it in each of its views: axe-core (the plan's rules),
    every request (one to another host is recorded and goes nowhere; failed local ones are recorded)
    and the console (errors, uncaught exceptions). One context per kind of device in the one
    ``browser``; up to ``pool`` tabs work at once, each page's audit running in its own renderer.
    The visits come back in the order of ``plans``."""
    if not AXE_JS.is_file():
        raise FileNotFoundError(AXE_JS)
    pool = pool or pool_size()
    contexts = {}
    for name in sorted({plan.context for plan in plans}):
        contexts[name] = browser.new_context(**CONTEXTS[name])
        contexts[name].add_init_script(path=str(AXE_JS))
        contexts[name].add_init_script(EVERY_SECTION_LAID_OUT)
    queue = deque(enumerate(plans))
    audited: dict[str, set] = {name: set() for name in VIEWS}
    idle: list[_Tab] = []
    running: list[_Tab] = []
    visits: list[PageVisit | None] = [None] * len(plans)  # in the order of the plans
    try:
        while queue or running:
            while queue and len(running) < pool:
                number, plan = queue.popleft()
                tab = next((t for t in idle if t.context_name == plan.context), None)
                if tab is not None:
                    idle.remove(tab)
                else:
                    tab = _Tab(contexts[plan.context], plan.context, audited)
                tab.begin(base_url, plan)
                tab.number = number
                running.append(tab)
            done = [tab for tab in running if tab.advance()]
            for tab in done:
                running.remove(tab)
                visits[tab.number] = tab.visit
                tab.visit = None
                idle.append(tab)
            if not done and running:
                running[0].page.wait_for_timeout(15)  # let the tabs work; events come in meanwhile
    finally:
        for context in contexts.values():
            context.close()
    return visits


_VISITS: dict[tuple[str, str], list[PageVisit]] = {}


def site_visits(browser, site: Path, base_url: str) -> list[PageVisit]:
    """:func:`visit_pages` over :func:`plan_visits` of the built site, done once per session and
    shared by the accessibility and offline tests."""
    key = (str(site), base_url)
    if key not in _VISITS:
        _VISITS[key] = visit_pages(browser, base_url, plan_visits(site))
    return _VISITS[key]
