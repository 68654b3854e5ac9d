"""Keeping narrative prose from outrunning its checks.

A narrative page (MyST, ``docs/<language>/*.md``) has no script to hold asserts, so each of its
paragraphs that states torch behaviour must be backed in one of three ways:

- it names a fact of :mod:`tensorfacts.facts` with the role ``{fact}`id```;
- the block right after it is a ``{doctest}`` fence (the doctest is its check);
- it is marked as not stating behaviour, with a MyST comment line ``% prose: <why>`` just above it
  (above a list, the line covers every item of the list).

"States behaviour" is a cheap, deliberately wide test: inline code together with a word about
memory, copies, gradients or errors. A false alarm costs one ``% prose:`` line; a missed claim
costs a wrong page.
"""

from __future__ import annotations

import re
from pathlib import Path

FACT_ROLE = re.compile(r"\{fact\}`([^`]+)`")
_CODE = re.compile(r"`[^`]+`")
_BEHAVIOUR = re.compile(
    r"shar|cop(y|ies)|rais|requires|return|leaf|leaves|memory|storage|gradient|version|in[- ]place|"
    r"graph|error|共享|复制|报错|梯度|叶子|内存|存储|版本|原地|计算图|错误",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^(`{3,}|~{3,})")
_EXEMPT = re.compile(r"^%\s*prose:\s*\S")


def blocks(text: str) -> list[tuple[int, str, str]]:
    """The page as (line number, kind, text) blocks: kind is "para", "fence" or "comment"."""
    result: list[tuple[int, str, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            start, marker = i, fence.group(1)
            i += 1
            while i < len(lines) and not lines[i].startswith(marker):
                i += 1
            result.append((start + 1, "fence", "\n".join(lines[start:i + 1])))
            i += 1
        elif line.startswith("%"):
            result.append((i + 1, "comment", line))
            i += 1
        elif not line.strip() or line.startswith("#"):
            i += 1
        else:
            start = i
            while (i < len(lines) and lines[i].strip() and not _FENCE.match(lines[i])
                   and not lines[i].startswith(("%", "#"))):
                i += 1
                if i < len(lines) and lines[i].startswith("- "):
                    break  # each list item is a block of its own
            result.append((start + 1, "para", "\n".join(lines[start:i])))
    return result


def states_behaviour(paragraph: str) -> bool:
    return bool(_CODE.search(FACT_ROLE.sub("", paragraph))) and bool(_BEHAVIOUR.search(paragraph))


def unbacked(text: str) -> list[tuple[int, str]]:
    """(line, first words) of every paragraph that states behaviour with nothing backing it."""
    found = []
    items = blocks(text)
    exempt_list = False  # a "% prose:" line above a list covers the whole list
    for index, (line, kind, body) in enumerate(items):
        before = items[index - 1] if index else None
        marked = bool(before and before[1] == "comment" and _EXEMPT.match(before[2]))
        is_item = kind == "para" and body.startswith(("- ", "1. "))
        exempt_list = is_item and (marked or (exempt_list and before is not None and before[1] == "para"))
        if kind != "para" or not states_behaviour(body) or FACT_ROLE.search(body):
            continue
        after = items[index + 1] if index + 1 < len(items) else None
        if after and after[1] == "fence" and "{doctest}" in after[2].splitlines()[0]:
            continue
        if marked or exempt_list:
            continue
        found.append((line, " ".join(body.split())[:60]))
    return found


def named_facts(text: str) -> list[str]:
    """The fact ids a page names, in order."""
    return FACT_ROLE.findall(text)


def problems(path: Path) -> list[str]:
    """Every unbacked paragraph of one page, as "path:line: first words"."""
    return [f"{path}:{line}: states behaviour with no check: {words}…"
            for line, words in unbacked(path.read_text(encoding="utf-8"))]
