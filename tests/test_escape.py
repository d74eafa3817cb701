"""The escaping helpers: untrusted text rendered as the same characters, never as structure."""
from sounding import escape


def test_markdown_neutralises_html_and_structure():
    assert escape.markdown("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert escape.markdown("a|b") == "a\\|b"
    assert escape.markdown("**bold** _it_ `code` [link](u)") == "\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\[link\\](u)"
    assert escape.markdown("# heading") == "\\# heading"
    assert escape.markdown("a # b") == "a # b"  # '#' only matters at the start
    assert escape.markdown("x & y") == "x &amp; y"
    assert escape.markdown("back\\slash") == "back\\\\slash"
    assert escape.markdown("two\nlines\r\n") == "two lines "


def test_markdown_renders_back_to_the_same_text():
    markdown_it = __import__("pytest").importorskip("markdown_it")
    raw = "<b>x</b> | *y* _z_ `c` [l](u) \\ & #"
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(f"| h |\n|---|\n| {escape.markdown(raw)} |\n")
    assert "<b>" not in html and "<em>" not in html and "<code>" not in html and "<a " not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html


def test_terminal_shows_control_characters():
    assert escape.terminal("q\x1b[31mred\x1b[0m") == "q\\x1b[31mred\\x1b[0m"
    assert escape.terminal("nul\x00 bell\x07 del\x7f c1\x9b") == "nul\\x00 bell\\x07 del\\x7f c1\\x9b"
    assert escape.terminal("rtl\u202eoverride") == "rtl\\u202eoverride"
    assert escape.terminal("lone\ud800surrogate") == "lone\\ud800surrogate"
    assert escape.terminal("tab\tkept, ünïcode kept") == "tab\tkept, ünïcode kept"
    assert escape.terminal("new\nline") == "new\\x0aline"
    escape.terminal("d\ud800x").encode("utf-8")  # printable: no UnicodeEncodeError


def test_html():
    assert escape.html('<a href="x">&</a>') == "&lt;a href=&#34;x&#34;&gt;&amp;&lt;/a&gt;"
