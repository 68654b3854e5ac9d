"""Two wording rules of the Chinese edition that a program can check.

- **Spacing**: one space between Chinese and inline code or a Latin word (``用 `clone()` 复制``,
  ``在 torch 上``); no space next to full-width punctuation (``报错：`RuntimeError```, not
  ``报错： `RuntimeError```). :func:`spacing_problems` reports every break of that rule in a text
  (MyST roles such as ``{ref}`label```, links and titles in 《》 are left out: they render as
  titles, or quote an author).
- **No English prose** in generated text shown on a Chinese page: :func:`english_words` lists the
  English words of a text outside code (backticks) and outside torch's own messages
  (``RuntimeError: ...``), which stay as torch prints them.
"""

from __future__ import annotations

import re

from sitetools.rules.typography import CJK_RULES, LATIN_STOP, TOKEN

#: MyST roles (``{doc}`about```), substitutions (``{{torch_version}}``), links' targets and
#: placeholders, which render as something else: replaced by a neutral mark before checking.
_NOT_TEXT = re.compile(r"\{[a-z:-]+\}`[^`]*`|\{\{[^}]*\}\}|\]\([^)]*\)|\{[a-z_]+\}|<https?://[^>]*>")
#: A title in 《》 is the author's, spacing included.
_TITLE = re.compile(r"《[^》]*》")
_CODE = re.compile(r"``?[^`]+``?")


def spacing_problems(text: str) -> list[tuple[int, str, str]]:
    """``(line, excerpt, rule)`` for each break of the spacing rule in ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(("```", ">>>", "...", ":", "%", "|")):
            continue  # fences, doctest lines, directive options, comments and tables of code
        for match in LATIN_STOP[0].finditer(line):
            found.append((number, line[max(0, match.start() - 8):match.end() + 2], LATIN_STOP[1]))
        bare = _CODE.sub(TOKEN, _TITLE.sub("《》", _NOT_TEXT.sub("\u25a1", line)))
        for pattern, rule in CJK_RULES:  # the one rule table, shared with the example pages
            for match in pattern.finditer(bare):
                found.append((number, bare[max(0, match.start() - 8):match.end() + 8].replace(TOKEN, "`…`"), rule))
    return found


#: English words that only prose uses (a trace's code and torch's messages are removed first).
_PROSE = re.compile(
    r"\b(after|before|both|prints?|last|errors?|true|gradient|runs?|on|the|with|if|as|stays|changed|"
    r"compiles|none|line|continues|switched|missing|plus|follows|reaches|values|shares|set|and)\b")
_TORCH_MESSAGE = re.compile(r"\b[A-Z]\w*(Error|Warning): [^;；]*")


def english_words(text: str) -> list[str]:
    """The English prose words of ``text`` outside code and outside torch's own messages."""
    bare = _TORCH_MESSAGE.sub(" ", _CODE.sub(" ", text))
    return _PROSE.findall(bare)
