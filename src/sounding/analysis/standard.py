"""Lucene's StandardTokenizer, exactly: UAX#29 word boundaries as Lucene 9.9 implements them.

Lucene's StandardTokenizer (the one inside Anserini, hence behind every Pyserini BM25 number) is a
JFlex scanner, StandardTokenizerImpl, generated from Unicode 12.1 word-break and emoji properties.
Besides UAX#29 words ("U.S.A", "3.14", "don't", "1,000", "a_b") it emits single ideographs and
hiragana, katakana and Hangul runs, south-east Asian runs (Thai, Lao, Khmer, Myanmar) and emoji
sequences, which include "©", "®", "™" and arrows such as "↔"; it skips every other character.
Regular expressions over today's Unicode properties cannot reproduce it (emoji aside, later Unicode
versions add letters and move characters between classes), so this module runs Lucene's own scanner
automaton, from tables extracted out of the Lucene jar (`_SCANNER` below; regenerate it with
tests/comparison/lucene_oracle/oracle.py). Two paths, same tokens:

* ASCII stretches: one `re` pattern with the scanner's rules over ASCII (letters, digits and "_"
  join; ":", "." and "'" join two letters; ",", ";", "." and "'" join two digits), several times
  faster than any automaton written in Python. Tests check it against the automaton.
* chunks between ASCII whitespace that hold a non-ASCII character (a few percent of English text):
  the scanner automaton, character by character, cached per chunk.

Token length: the scanner buffers 255 UTF-16 units from a token's start, so a longer word comes out
in pieces of at most 255 units (a join that would need the 256th unit is not made). Lucene then
lower-cases, drops stop words, etc.; tokens here keep the input's case.
"""
from __future__ import annotations

import base64
import re
import zlib
from bisect import bisect_right
from itertools import accumulate

MAX_TOKEN_LENGTH = 255  # StandardAnalyzer.DEFAULT_MAX_TOKEN_LENGTH = the scanner's buffer, in UTF-16 units

# ASCII fast path: the scanner's rules restricted to ASCII. "_" (ExtendNumLet) joins anything but
# is no word on its own; "#" and "*" only start keycap emoji, which need U+20E3.
_ASCII = re.compile(
    r"[A-Za-z0-9_]+(?:(?:(?<=[A-Za-z])[:.'](?=[A-Za-z])|(?<=[0-9])[,;.'](?=[0-9]))[A-Za-z0-9_]+)*"
)

# A chunk between ASCII whitespace that holds a non-ASCII character (ASCII whitespace always breaks;
# the look-behind makes the search start only at chunk starts, which keeps it linear).
_NON_ASCII_CHUNK = re.compile(r"(?<![^ \t\n\r\f\v])[^ \t\n\r\f\v\x80-\U0010ffff]*[^\x00-\x7f][^ \t\n\r\f\v]*")

_CHUNK_TOKENS: dict[str, list[str]] = {}  # scanner results per chunk: chunks repeat ("don’t", "“The")


def standard_tokenize(text: str) -> list[str]:
    """Tokens of `text` as Lucene's StandardTokenizer emits them (case preserved)."""
    if text.isascii():
        return _ascii_tokens(text, 0, len(text))
    tokens, pos = [], 0
    cache = _CHUNK_TOKENS
    for chunk in _NON_ASCII_CHUNK.finditer(text):
        start, end = chunk.span()
        if start > pos:
            tokens += _ascii_tokens(text, pos, start)
        word = chunk.group()
        found = cache.get(word)
        if found is None:
            if len(cache) >= 100_000:
                cache.clear()
            found = cache[word] = _scan(word)
        tokens += found
        pos = end
    if pos < len(text):
        tokens += _ascii_tokens(text, pos, len(text))
    return tokens


def _ascii_tokens(text: str, start: int, end: int) -> list[str]:
    # Tokens never contain a character outside [A-Za-z0-9_] and the joiners :.',; so those become
    # spaces and str.split() cuts the text into chunks (C speed). A joiner at either end of a chunk
    # joins nothing; only a chunk with one inside, or with "_", needs the rules (the regex). Same
    # tokens as the regex over the whole text, ~2× faster.
    tokens: list[str] = []
    for chunk in text[start:end].translate(_NOT_IN_TOKENS).split():
        if chunk.isalnum():
            tokens.append(chunk)
        else:
            chunk = chunk.strip(":.',;")
            if chunk.isalnum():
                tokens.append(chunk)
            elif chunk:
                tokens += _ASCII.findall(chunk)
    if not tokens:
        return tokens
    if max(map(len, tokens)) > MAX_TOKEN_LENGTH:  # rare: let the scanner cut at its buffer
        return _scan(text[start:end])
    if text.find("_", start, end) >= 0:
        tokens = [t for t in tokens if t.strip("_")]
    return tokens


_NOT_IN_TOKENS = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) in "_:.',;")}


def _scan(s: str) -> list[str]:
    """The tokens of `s` by Lucene's scanner automaton (JFlex's longest match, 255-unit buffer)."""
    out: list[str] = []
    n = len(s)
    if not n:
        return out
    bmp = _BMP_CLASS
    if max(s) < "\U00010000":
        classes = [bmp[o] for o in map(ord, s)]
        units = None
    else:  # astral characters: classes by bisection, and the buffer counts UTF-16 units
        classes = [bmp[o] if o < 0x10000 else _astral_class(o) for o in map(ord, s)]
        units = list(accumulate((2 if c > "\uffff" else 1 for c in s), initial=0))
    trans, emit = _TRANS, _EMIT
    i = 0
    while i < n:
        if units is None:
            limit = min(n, i + MAX_TOKEN_LENGTH)
        else:
            limit = bisect_right(units, units[i] + MAX_TOKEN_LENGTH) - 1
        state, j, mark, keep = 0, i, i + 1, False
        while j < limit:  # longest match: run until no transition, remember the last accepting state
            state = trans[state][classes[j]]
            if state < 0:
                break
            j += 1
            e = emit[state]
            if e:
                mark, keep = j, e == 2
        if keep:
            out.append(s[i:mark])
        i = mark
    return out


def _astral_class(cp: int) -> int:
    return _ASTRAL_CLASS[bisect_right(_ASTRAL_START, cp) - 1]


def _load_scanner(blob: str):
    """Decode `_SCANNER` (format: see pack_tables in tests/comparison/lucene_oracle/oracle.py)."""
    data = zlib.decompress(base64.b85decode(blob))
    n_classes, n_states = data[0], data[1]
    emit = tuple(data[2 : 2 + n_states])
    pos = 2 + n_states
    trans = tuple(
        tuple(b - 1 for b in data[pos + s * n_classes : pos + (s + 1) * n_classes]) for s in range(n_states)
    )
    pos += n_states * n_classes
    runs, cp = [], 0  # (first code point, class)
    while pos < len(data):
        length = shift = 0
        while True:
            b = data[pos]
            pos += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        runs.append((cp, data[pos]))
        pos += 1
        cp += length
    assert cp == 0x110000
    bmp = bytearray(0x10000)
    astral_start, astral_class = [], []
    for (first, cls), (nxt, _) in zip(runs, runs[1:] + [(0x110000, 0)]):
        if first < 0x10000:
            stop = min(nxt, 0x10000)
            bmp[first:stop] = bytes([cls]) * (stop - first)
        if nxt > 0x10000:
            astral_start.append(max(first, 0x10000))
            astral_class.append(cls)
    return emit, trans, bytes(bmp), astral_start, astral_class, runs


# Lucene 9.9.1 StandardTokenizerImpl (JFlex 1.8.2), as in Anserini's fatjar (Pyserini 1.x):
# per-state emit codes, the transition table and the code point -> character class map.
# Generated by `python tests/comparison/lucene_oracle/oracle.py --jar JAR tables`. Apache-2.0 (Lucene).
_SCANNER = (
    "c-oCvO^h5@5w7>T-}LMErn_fndS+*5X8*?PUGMI!XV?GhTw)AHhD!uWz(OJth#Wuy1c(b4D*^&o5gZUiC^AT(2)OVgkthm6M"
    "hfJF;K0ufA#nsjkT`PStLoRYvuitXYpT26Pt~ixS5>>qkC9SZ<EO)0Y0^YMNPax3ka|9h<cR>WHjPBv)H&bOSzffXUT9;}BR"
    "(C0PAP*fbviuJ>-ADHixk_GViWfb=F%mK;~2<*2E&0Fk+DNE{9q2R3gL}pmT4K3%Vv4m&<ZVM2snBYfz?C?Ym_7jt<yNLwP0"
    "(Fwam?0{Op`SDcGhaO+_G}fTPFZ=lDkfadXmou=RMD(tAda%Y)}sjZ{xfnSnAh8=2^NnzAgL+ms9Bx!{cCv!xLgco$R@;axB"
    "`ds+gmmf(!E<`y>vHa7*|+}f<L@U#WawCiEJ{dWGWpHiT#7t4Shd$vzbh>3gn^xy`;8R^ZOy-17j%A#3ZWM?m82sm<CAB%m{"
    "uVbj+@89pwo%{WXnSsE7KQw?h07SdHy9m1x4dIoc84h`I2oxZXERL`^GNTa-G{O+@NTE5x6aiLN!h40W`kB;mJ2{Hmlh57^J"
    "3BwUJ_gYGy5Nkg&q+Imv|}?Kvnt~;e&a_B%}E`a)A`Umen0nT_w&F!YJhDCY;6h7$kv<@>gbz1DEhVqw(A($7OZym4h+9zc4"
    "}wu?CjJ=V87zC3-1cf$nG55iNLw)$n!LrOpdSNxlkkRw@i0uFV0zL3JXomrKwoxGEJw`Ionp|yJDu5`3}X756gWASLXz(rJX"
    "!L+WW$U=;5k7!c$9It1^9nD)&XgyecR4Jhn)OSUfb39R|w7!^5{L05#j1ayp|Nqtq!Kk%}}atw_ZHqsTQ>qGCe>8<R>EzGq1"
    "}WwFaE*C1uFFTn^UVG;N$;BS#_P+}7*?WeuLgvR#Rf~6ILBw`{!33xx?4i6Il5`Q+Cwa`?1wn3NBo>zPz=>W=G8a88!o6OHs"
    "!#4=U7L|k7BHFcG?=s*SD*|5rqr%T(z2PAbzA?Toi{!k5xntLg9ePc-Ecn=*T()jg-d&kPl-AU<F;-JR1Tel$OTc0jv5VBjD"
    "b{xBz+aNpHX!j1=V@YjT0Dy#T5Qr|wMDK7_7Rg}H`V}5Z7~yzC8EFq5?3a#c2L8{$2jR32sbiJFMHuypRgA|pD-s6FQCpcms"
    "Czr$GDgv4_hn}sO+SJBq>IXuy#_PdHN%LEWXFJVOd(0<)KL=GQ{}SzSn~Dd_+xXYM@0_d5$EOJo~7Hc^fp~5QL3c#~@n_t=Z"
    "cV0<@OBMJo8=h{_$4d7d^2veYtbn_=aMdYhwZj)t!S+cuf$>7bn!DcX>&Z!3#)JS8kEtkMYaZ4t-t4fbZVpQ}RWNnt3-Z2<|"
    "hEz&vm0SurYa3}lHLgiZKd9G1Nv{0O{;haVAW4>O_sDR^wHQ0b%OSx5sqn<WAJnIi>H!s1_WesZNaS`VcMv=%9VVvbnj8);X"
    "7;~GVjS-D@#fP_b>!u(&1bBsShwu6W)(U(N1Ag6dz^uWQEqV$#2gg5oVZm|=GW1?dc*Jp5MGWG&9p2hEWtKg|_=S9}fQ|E*?"
    "IKoL7w@rVx4;2D_hYNXYd3JaIDs``ou)^VnyrXUJxxGA$k~Rl0=%$>nBlv1F?aCHa=~%K92s)Z6#g2ba%vZR0{gmbfl|m4A-"
    "`mjbtX2)c*B;s705x5)@2*eFNH+AtUMIwXzF_0Sl<BXD%;RKWv|M`{+1TQXvvuTwZWJ*tYYrsT!x7RuQCnijjW1O%t`iJ(0o"
    "G;@{7@u(v4SX6UiRYn8Jei^FpC%SE=U}avVjt34DVyd!9O8wKKnfaV&A*!l{PG?zm)eb>BK%6->3mE+9CN#~m_^`!|kseDu?"
    "R8-OM9E~d!62H${g%ie=?Sr~_4byq3I0S!PC@EOd19zuIQQ~-&>Md9l}SBO%|1;K<ff1#M$1I|420RLrCeh=fh4v_PK>c<N0"
    "Nd;fxM8qMeZIk9N!WEl@!onSR5*+a`So2fteu4(2qFZH?{;bMrWv_CH(h~W>nJ(g@L~evKPxU0LcB9^hy0B;0$i4e;YXPnIM"
    "QU}wUF&{{rr7Yo?hh5ce7<}Sz4?7rw&?lPUZ=AV@_A0LEz5<aggS9>EJDXW0XR)RVpWXY$8A$mF*qJM_WN`J3TuB3HO@)gw|"
    "zr0Z&hzyHbU*txF;DReYu6W!+pq+v6bcBhO-Cq3umlt%%_qwZOE7n8Y0`A!=5VZ=)wS$jQe~eA%T|sTIJRXj?8=owez!5yJ~"
    "(v_&}>ki>;UrT3>tz{Y#gcK3;BOa}(;pV@-(MRFnY>0AtbtT=OG#o&KS1n;yqGm+Tp-M!8pus;^?cEh_fZLUqz<pQ5yGp72c"
    "u#2wIcRr7#|F!51um7VOZJYDH(zY1eDT6zXiYed{&G$r{d>Vy(ofM;&U^acAaT=cJSR(}@B2u?VVxLc()T+kJ0w+VCMFDmTk"
    "bZ@29?a*Dhr?3rAGMs_cF4z|py`o{u9<rgeFDNlCyLA#uGLtQ0k>h&RUJLR#AsE;jFg}_w`*<j_C@gS&98&VKWOnF_?9P%d+"
    "fyRX2(Da$X)7)r$lbP|q?`6Kod?bU0VP@fmWj9vve@eV*OkZ-`HQxI#x5&x+8!3z-i0(uOVaQ(uxA5-#&(w!g^)YNi4{20?_"
    "({75n{Lzo{^h;3Q{Q0H$68S*XHV#l6vL9d5Tpd{NsnVLejL(wL*3KVx;__4&qGX?<lyj?Kvlkh#*;`ebk7mA7bTS;-tfTQqT"
    "VYLg~VW1#a#TJ1*Nq8pwRr;9bHMLLn-+{OFuZ;5~L>;Xj5bc3BrB->c-^5{`)v>DdqYiuyC$(umEu*#>`q*0$uNG3xYlT6&n"
    "%a>oD&IG6P$#Cn*?{mq&Bo9GjxS@$l-h$GQigdJ<vgjExSe_102V*gc5-%0E<^eL2w*OmQcmwv**lKMAR>5bUFdYxX4v7c+U"
    "%bt<b4Z47Rh@QecP3cp+uxH2q)Ijaq3Y|k`*~{Dw`wU@PS@%V(sqS6fJD{kyfRy?|mp%c?3_;3O*>Nu_{oSv(r4j9k%~mk+P"
    "44_&i|9!(dUxG?hdAI!X@;m_gIo(8jt%2ch$a)tCC~kl36~`Bsz0dS>dOv1m)(x(GH%s5@fK37?@5s^{2v@!oE9nv2OIxM(H"
    "@_L=0u0v@E?uXh>^9w?C3WfOo`v7cUB?5ahHme!`UBZRYq_@`YLi7q4*ya`sl>|lTfe4!5Z-#Kjys<S`;Jr>zZzBm!TG~qOu"
    "Ke-hgSH?li6LIB7JXk89JR8!V|_Ass>~vni@!jLQD=$eF>fw6pXz?e^)ma-T!j@FeY`--z86vY=_WGx)C1`!F{Joddj*fyrN"
    "fr^{{n#aij<uL=d^*}XESpIt4#+o!v6`S&{$7=DGG9;y+7=}qOo@jp-h2gd&S^Z"
)

_EMIT, _TRANS, _BMP_CLASS, _ASTRAL_START, _ASTRAL_CLASS, _CLASS_RUNS = _load_scanner(_SCANNER)


def scanner_arrays():
    """The scanner as arrays for compiled code (analysis/compiled.py): transitions (states × classes,
    int16, -1 = none), emit codes per state (uint8: 1 accepts, 2 accepts and keeps the token), the
    class of each BMP code point (uint8) and the astral runs (first code point int32, class uint8)."""
    import numpy as np

    return (np.array(_TRANS, np.int16), np.frombuffer(bytes(_EMIT), np.uint8).copy(),
            np.frombuffer(_BMP_CLASS, np.uint8).copy(), np.array(_ASTRAL_START, np.int32),
            np.array(_ASTRAL_CLASS, np.uint8))
