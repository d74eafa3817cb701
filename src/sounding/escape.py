"""Untrusted text made safe for where it goes: one function per target.

Dataset folder names, query and document ids, system names and error messages come from users and
their files. Each target has its own rules, so each has one function here, and every writer calls it:

- `markdown`: a table cell or heading of report.md. HTML's `<`, `>` and `&` become entities (CommonMark
  renderers pass raw HTML through), and the characters that change Markdown structure — `\\`, `|`, `*`,
  `_`, `` ` ``, `[`, `]`, and `#` at the start — are backslash-escaped; line breaks become spaces, since a
  cell or heading is one line.
- `terminal`: a line printed to a terminal. Control characters (C0, DEL, C1, and the bidirectional
  overrides, lone surrogates) are shown as `\\x1b`-style escapes so a payload cannot move the cursor, recolour or hide text.
- `html`: text inside an HTML element or attribute (markupsafe, as the Jinja template's autoescape).

Hand-written rather than a library call: no maintained library escapes text for a Markdown *table cell*
(markdown libraries render Markdown; they do not neutralise it), and Python has no terminal escaper.
"""
from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\|*_`\[\]])")
_HTML_IN_MD = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# C0 controls but tab, DEL, C1 controls, the Unicode bidi overrides/isolates (Trojan-source style), and lone
# surrogates (valid in JSON strings, unprintable in UTF-8)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def markdown(text: object) -> str:
    """`text` as one Markdown table cell or heading line that renders as the same characters."""
    s = str(text)
    s = "".join(_HTML_IN_MD.get(ch, ch) for ch in s)
    s = _MD_SPECIAL.sub(r"\\\1", s)
    s = re.sub(r"[\r\n]+", " ", s)
    if s.startswith("#"):
        s = "\\" + s
    return s


def _visible(match: re.Match) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal(text: object) -> str:
    """`text` with every control character shown as an escape (`\\x1b`, `\\x00`, `\\u202e`); tabs kept."""
    return _CONTROL.sub(_visible, str(text))


def html(text: object) -> str:
    """`text` escaped for HTML content or a quoted attribute value."""
    from markupsafe import escape

    return str(escape(str(text)))


__all__ = ["html", "markdown", "terminal"]
