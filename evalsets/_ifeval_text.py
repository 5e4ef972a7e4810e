"""IFEval's text measures: word count, nltk's Punkt sentence splitter (English model) and word tokenizer.

nltk is not a dependency and its Punkt model cannot be downloaded at run time, so the decision procedure and the
English model's parameters are ported here (see docs/ifeval.md for the cross-checks against real nltk).
"""

from __future__ import annotations

import base64
import functools
import re
import zlib

# ---------------------------------------------------------------------------------------------------------------
# Text measures (instructions_util.py)


def count_words(text: str) -> int:
    """IFEval's word count: nltk RegexpTokenizer(r"\\w+"), i.e. runs of Unicode word characters."""
    return len(re.findall(r"\w+", text))


# Punkt (Kiss & Strunk 2006) as nltk 3.8 runs it with its English model, which IFEval's count_sentences loads
# (nltk.data.load("tokenizers/punkt/english.pickle")). nltk is not a dependency: the decision procedure is ported
# here with the English model's parameters: abbreviation types, collocations, frequent sentence starters and, from
# its orthographic-context table, the facts the procedure reads (which word types were seen lower-case, and of
# those which were also seen capitalised mid-sentence), in _PUNKT_ORTHO_BLOB at the end of this module.
_PUNKT_ABBREVS = frozenset((
    ". . ", "a.a", "a.c", "a.d", "a.g", "a.h", "a.m", "a.m.e", "a.s", "a.t", "adm", "ala", "ariz", "aug", "ave",
    "b.f", "b.v", "bros", "c", "c.i.t", "c.o.m.b", "c.v", "calif", "chg", "cie", "co", "col", "colo", "conn", "corp",
    "cos", "ct", "d", "d.c", "d.h", "d.w", "dec", "dr", "e", "e.f", "e.h", "e.l", "e.m", "f", "f.g", "f.j", "feb",
    "fla", "fri", "ft", "g", "g.d", "g.f", "g.k", "ga", "gen", "h", "h.c", "h.f", "h.m", "i.m.s", "ill", "inc",
    "j.b", "j.c", "j.j", "j.k", "j.p", "j.r", "jan", "jr", "k", "kan", "ky", "l", "l.a", "l.f", "l.p", "lt", "ltd",
    "m", "m.b.a", "m.d.c", "m.j", "maj", "messrs", "mg", "mich", "minn", "mr", "mrs", "ms", "n", "n.c", "n.d", "n.h",
    "n.j", "n.m", "n.v", "n.y", "nev", "nov", "oct", "ok", "okla", "ore", "p", "p.a.m", "p.m", "pa", "ph.d", "prof",
    "r", "r.a", "r.h", "r.i", "r.j", "r.k", "r.t", "rep", "reps", "s", "s.a", "s.a.y", "s.c", "s.g", "s.p.a", "s.s",
    "sen", "sep", "sept", "sr", "st", "sw", "t", "t.j", "tenn", "tues", "u.k", "u.n", "u.s", "u.s.a", "u.s.s.r", "v",
    "va", "vs", "vt", "w", "w.c", "w.r", "w.va", "w.w", "wash", "wed", "wis", "yr",
))
_PUNKT_COLLOCATIONS = frozenset(
    [("##number##", w) for w in (
        "abreast", "aes", "business", "cbot", "colgate", "commodities", "cooper", "corrections", "credit",
        "dividend", "financing", "genentech", "henley", "insider", "international", "leisure", "letters", "notable",
        "pay-fone", "pegasus", "pepper", "review", "rj", "wedgestone", "who", "zimmer")]
    + [("b", "edelman"), ("b", "levine"), ("b", "smith"), ("b", "stewart"), ("b", "wigton"), ("i", "magnin"),
       ("i", "toussie"), ("j", "aron"), ("j", "fialka"), ("j", "walter"), ("o", "ludcke")]
)
_PUNKT_SENT_STARTERS = frozenset((
    "according", "although", "among", "both", "but", "despite", "even", "he", "however", "i", "if", "in", "indeed",
    "instead", "it", "many", "meanwhile", "moreover", "most", "nevertheless", "nonetheless", "nor", "sales",
    "separately", "similarly", "since", "so", "some", "the", "there", "these", "they", "this", "though", "thus",
    "under", "when", "while", "yet",
))
_NON_WORD = r"(?:[)\";}\]\*:@\'\({\[!?])"
_MULTI_CHAR = r"(?:\-{2,}|\.{2,}|(?:\.\s){2,}\.)"
_PUNKT_WORD = re.compile(
    rf"({_MULTI_CHAR}|(?=[^\(\"\`{{\[:;&\#\*@\)}}\]\-,])\S+?"
    rf"(?=\s|$|{_NON_WORD}|{_MULTI_CHAR}|,(?=$|\s|{_NON_WORD}|{_MULTI_CHAR}))|\S)"
)
_PERIOD_CONTEXT = re.compile(rf"[.?!](?=(?P<after_tok>{_NON_WORD}|\s+(?P<next_tok>\S+)))")
_REALIGN = re.compile(r'["\')\]}]+?(?:\s+|(?=--)|$)', re.MULTILINE)
_NUMERIC = re.compile(r"^-?[\.,]?\d[\d,\.-]*\.?$")
_INITIAL = re.compile(r"[^\W\d]\.$")
_ELLIPSIS = re.compile(r"\.\.+$")


def _punkt_type(tok: str) -> str:
    return _NUMERIC.sub("##number##", tok.lower())


def _punkt_breaks(tokens: list[str]) -> list[bool]:
    """Sentence-break flag of each token: Punkt's first pass (by type) and second pass (by the next token)."""
    breaks, abbrs, ellipses = [], [], []
    for tok in tokens:
        brk = abbr = ell = False
        if tok in (".", "?", "!"):
            brk = True
        elif _ELLIPSIS.match(tok):
            ell = True
        elif tok.endswith(".") and not tok.endswith(".."):
            if tok[:-1].lower() in _PUNKT_ABBREVS or tok[:-1].lower().split("-")[-1] in _PUNKT_ABBREVS:
                abbr = True
            else:
                brk = True
        breaks.append(brk)
        abbrs.append(abbr)
        ellipses.append(ell)
    for i in range(len(tokens) - 1):
        tok, nxt = tokens[i], tokens[i + 1]
        if not tok.endswith("."):
            continue
        typ = _punkt_type(tok)
        typ = typ[:-1] if len(typ) > 1 and typ.endswith(".") else typ
        next_typ = _punkt_type(nxt)
        if breaks[i + 1] and len(next_typ) > 1 and next_typ.endswith("."):
            next_typ = next_typ[:-1]
        initial = bool(_INITIAL.match(tok))
        if (typ, next_typ) in _PUNKT_COLLOCATIONS:
            breaks[i] = False
            continue
        ortho = _punkt_ortho(nxt, next_typ)
        upper = nxt[0].isupper()
        if (abbrs[i] or ellipses[i]) and not initial:
            if ortho is True or (upper and next_typ in _PUNKT_SENT_STARTERS):
                breaks[i] = True
                continue
        if initial or typ == "##number##":
            if ortho is False:
                breaks[i] = False
            elif ortho is None and initial and upper and next_typ not in _punkt_ortho_sets()[0]:
                breaks[i] = False
    return breaks


def _punkt_ortho(tok: str, typ: str) -> bool | None:
    """Punkt's orthographic heuristic: is `tok` a sentence starter? True, False, or None for "unknown"."""
    if tok in (";", ":", ",", ".", "!", "?"):
        return False
    lower_seen, lower_and_mid_upper_seen = _punkt_ortho_sets()
    if tok[0].isupper() and typ in lower_seen and typ not in lower_and_mid_upper_seen:
        return True
    if tok[0].islower() and typ not in _PUNKT_BEG_LC_ONLY:
        return False
    return None


@functools.lru_cache(maxsize=1)
def _punkt_ortho_sets() -> tuple[frozenset[str], frozenset[str]]:
    """(types seen lower-case, types seen lower-case and also capitalised mid-sentence) in the English model."""
    starters, _, mid_upper = zlib.decompress(base64.b85decode("".join(_PUNKT_ORTHO_BLOB))).decode().partition("\0")
    mid = frozenset(mid_upper.split("\n"))
    return frozenset(starters.split("\n")) | mid, mid


def _punkt_contains_break(context: str) -> bool:
    tokens = [t for line in context.split("\n") if line.strip() for t in _PUNKT_WORD.findall(line)]
    breaks = _punkt_breaks(tokens)
    return any(breaks[:-1])


def split_sentences_punkt(text: str) -> list[str]:
    """Punkt's sentences (PunktSentenceTokenizer.tokenize with boundary realignment)."""
    slices: list[slice] = []
    last_break = 0
    prev_match: re.Match[str] | None = None
    prev_slice = slice(0, 0)
    candidates: list[tuple[re.Match[str], str]] = []
    for match in _PERIOD_CONTEXT.finditer(text):
        before = text[prev_slice.stop:match.start()]
        ws = max((i for i, ch in enumerate(before) if ch.isspace() and ch in " \t\n\r\x0b\x0c"), default=0)
        start = ws + prev_slice.stop + 1 if ws else prev_slice.start
        word_slice = slice(start, match.start())
        if prev_match and prev_slice.stop <= word_slice.start:
            candidates.append((prev_match, text[prev_slice] + prev_match.group() + prev_match.group("after_tok")))
        prev_match, prev_slice = match, word_slice
    if prev_match:
        candidates.append((prev_match, text[prev_slice] + prev_match.group() + prev_match.group("after_tok")))
    for match, context in candidates:
        if _punkt_contains_break(context):
            slices.append(slice(last_break, match.end()))
            last_break = match.start("next_tok") if match.group("next_tok") else match.end()
    slices.append(slice(last_break, len(text.rstrip())))
    sentences: list[str] = []
    realign = 0
    for i, s1 in enumerate(slices):
        s1 = slice(s1.start + realign, s1.stop)
        if i + 1 == len(slices):
            if text[s1]:
                sentences.append(text[s1])
            continue
        s2 = slices[i + 1]
        m = _REALIGN.match(text[s2])
        if m:
            sentences.append(text[s1.start:s2.start + len(m.group(0).rstrip())])
            realign = m.end()
        else:
            realign = 0
            if text[s1]:
                sentences.append(text[s1])
    return sentences


def count_sentences(text: str) -> int:
    """IFEval's sentence count: the number of Punkt sentences (see split_sentences_punkt)."""
    return len(split_sentences_punkt(text))


# nltk.word_tokenize (NLTKWordTokenizer, nltk 3.8) for counting all-caps words. word_tokenize first splits
# sentences with Punkt; that only moves sentence-final periods into their own tokens, which changes no token's
# isupper(), so the tokenizer runs on the whole text here.
_WT_STEPS: list[tuple[re.Pattern[str], str]] = [(re.compile(p, f), r) for p, f, r in [
    # starting quotes
    ("([«“‘„]|[`]+)", 0, r" \1 "), (r'^\"', 0, r"``"), (r"(``)", 0, r" \1 "), (r"([ \(\[{<])(\"|\'{2})", 0, r"\1 `` "),
    (r"(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b", 0, r"\1 \2"),
    # punctuation
    (r'([^\.])(\.)([\]\)}>"\'' "»”’ " r"]*)\s*$", 0, r"\1 \2 \3 "), (r"([:,])([^\d])", 0, r" \1 \2"),
    (r"([:,])$", 0, r" \1 "), (r"\.{2,}", 0, r" \g<0> "), (r"[;@#$%&]", 0, r" \g<0> "),
    (r'([^\.])(\.)([\]\)}>"\']*)\s*$', 0, r"\1 \2\3 "), (r"[?!]", 0, r" \g<0> "), (r"([^'])' ", 0, r"\1 ' "),
    (r"[*]", 0, r" \g<0> "),
    # brackets, double dashes
    (r"[\]\[\(\)\{\}\<\>]", 0, r" \g<0> "), (r"--", 0, r" -- "),
]]
_WT_ENDING: list[tuple[re.Pattern[str], str]] = [(re.compile(p), r) for p, r in [
    ("([»”’])", r" \1 "), (r"''", " '' "), (r'"', " '' "), (r"\s+", " "),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "), (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1 \2 "),
]]
_WT_CONTRACTIONS = [re.compile(p) for p in (
    r"(?i)\b(can)(?#X)(not)\b", r"(?i)\b(d)(?#X)('ye)\b", r"(?i)\b(gim)(?#X)(me)\b", r"(?i)\b(gon)(?#X)(na)\b",
    r"(?i)\b(got)(?#X)(ta)\b", r"(?i)\b(lem)(?#X)(me)\b", r"(?i)\b(more)(?#X)('n)\b", r"(?i)\b(wan)(?#X)(na)(?=\s)",
    r"(?i) ('t)(?#X)(is)\b", r"(?i) ('t)(?#X)(was)\b",
)]


def word_tokenize(text: str) -> list[str]:
    """Tokens as nltk.word_tokenize makes them, up to the placement of sentence-final periods."""
    for pattern, repl in _WT_STEPS:
        text = pattern.sub(repl, text)
    text = f" {text} "
    for pattern, repl in _WT_ENDING:
        text = pattern.sub(repl, text)
    for pattern in _WT_CONTRACTIONS:
        text = pattern.sub(r" \1 \2 ", text)
    return text.split()



# ---------------------------------------------------------------------------------------------------------------
# From the orthographic-context table of nltk's English Punkt model (punkt_tab/english, identical to the
# english.pickle IFEval loads): word types with the flags Punkt's decision procedure reads. zlib + base85 of
# "\n"-joined types seen lower-case and never capitalised mid-sentence, "\0", then "\n"-joined types seen
# lower-case and also capitalised mid-sentence. _PUNKT_BEG_LC_ONLY: types seen lower-case at a sentence start and
# never capitalised.
_PUNKT_BEG_LC_ONLY = frozenset(('administrators', 'b-week', 'r-revised', 'z-holiday'))
_PUNKT_ORTHO_BLOB = (
    "c-m~e>zb>)(j@r5?qhzkcX!Y9bob?8kZo20;+4QIudAPoh)hB4Z=NbEBXvgSW2*1|udluvr#j?g-P35yz2xPq|JU-bum08#-%#hgrf$x!R2sLHJf"
    "vEu^#QGQ%xh41B6KmV0QCQME9o`$`$QMxG#I2kLFpcY>;mKh$Eg&W_Va~-!7~@BC9Ojeg#I)p5&1sN(>_t>Pa1Y3GwkNRAecN)^_d!yiwqZxPA&n"
    "Cz1wql%SfS{rH9n6x0LB0!7Y9HP6(p(b$T((lKM)W{IFDLU<@Sh%dzcF=8u8uUu1N5lG0QWcFps#C)vs~BT{p@Iibh(;I|z$Np+@@OmH&vV_Jeve"
    "So2XsYen!(-6EEhBU%QqqBWGzNx{hc0DmuwK4eMV331`@sUQhAj-5)<K`5Q$wKIXZO!*>SCCdTFV4Za^J)p?pI}8qVG^KZIh;QY(qdkgJo-ll9xs"
    "fF;>o_;=GL!MSTy`Okw@1U6u1j)*2&Zhv$WWhF;c*w`K0LPx;t?{tU_OskgPs8s`@aLG){ZV4RUU9C^^cJoKX8%j@i?};YHiO=_vj1ao|<~6v?BW"
    "sRf*iYr97^6{l_`Jgs|PXa_!~a$_ldPKilPItGY@0wd?sNTn<Nv=Y(v_nO~x8c}agyr@VtzFru47M$D6^GC(}pTm6L8}Kap=di*yFmevv&Q$oR0@"
    "aa1FjU$0bj!4k;TBpi_p*AH8QgcbASdw2S{r^;VY~{zzU1|@1f_PawcDSm^F~lD?!aL0xeSU*cxgfRVd3R9)}sT$%r(HqNnme)?%600`_Y$)CF`)"
    "{17Qg<wHx~45T02`W52Mxj{WAU7gWGBiZYg?<>&6ClDe+jA0uUm5NQY0vQ%o6-U>B6_Y8cptVP)-K+GL5##US1%PAeE{^^z1<DZODM^Z_T!cKDhb"
    "Fj~Iyz(3V95o19yiRq9yxXh((Ljrb;E>)QFC`ljc(f8^S&#}H2O|%}wVw3CGl?3D%)WB6t5R#gQYfz{lIHHjs{x@$0e}exsF-B@W>pS2%*^rZ*_<"
    "Pr0T|RV?^0p;g&?}^D8sWyUndPu8DKd^s<2uFqFc9R<S6MxMTSNGfilL1_9^s$#uLiP#ILndukH#c$mmq|yjU4v6F9!|prQq!?-r_o=pb3O&9mrc"
    "1?=B@8lG#O^TXVxYV~<X+jhSz{QEtrUK7v<AtWPF1)awJH94FombgG;gYIT3i<b~$w@?=Me4Zk}`C#JStuYy$wC>0`MbTgi8;FCAJ8YacX5gIRML"
    "z74@78+5nw8&f?|+0WE>EE~Gk%V$V14G{+wq&tTp-hYSX*Qri-FYTc?6|mB_>gK9ea{pD)b&xE^Cj%mBE$Xn?-|3L%Tp#&})aoSGqtHsmGH8Lv<}"
    "?kd!Duqm%B~=!4;A%Pac>A23^iMU#4Ax-s3%*JnaI>LcK3R+SJn$J2rzf|<}EppBXen&C$l%Bvbq^i#%<>7G`UX2bWArpFV$m7!RgcIjnJx0jKLj"
    "g5C^Q<<kV1uYFA#Inu3%r+ZhQ%B0iZhr1nyg=#Kd^;@8^YFAmC{k@6@-xp}Nj?y<!6bC2v@$0I<Z^nj$(^Tf8XzC$**+FyF9Q}?N9f(<WbVwhk``"
    "FsYp8lY09yAepY~~SkaKtM7u1*njs62Q#TdWADx92*L1(u=so^A4XsK8std3Yhg_sgE=TvmyM$wEoYI^Ql9?odw-AOojOARiZyk+epl}vp1F$Nh$"
    "-OW*ad^%HEI7lVwY!tV%)Xn)0%}f{D)24S|Z4fhlf_64sdCPC{)e3=i0Myx;($TE}v}||G>~0tl->3Z;h4Ld=vq>)sM^@H;&d0J&B4{9tLVfr6=%"
    "t?@{Q~M^18alQQG(LOU+;gGn_04^tXv>0+@{Cj^HJh_2&s?=xYo;xHH*S>vq3hxI`nf27&;n4TX3V)<kV|9ph$!_sfn=}orA?@>Zn-Da;y=9)dn-"
    "x_$~Pxigj>*y#R|*@R&z9VW<G73BuYKfK6ZSA5y3q>)S*=KMq95(5E&qIru9}mNQEa@R>P~wC}GPf~<p0^lgObh&mG!eI5Ue1Yb3$T{WX!lNIXqp"
    "@Gn9&A7GQ+mj|I15X}^@@kDKB5RcD!RA4f9!v|`1(MF1*%`eMxhlGcEu|U}BPAePxw11{*XcRUVRM}@-sl<bnvWscdN3>p4#tL5)Go|vyCG)Fx^h"
    "-WGAV%p`Jro+$2Bkgd?J`(%AlA6v0$$C?MVp$4g2D0KCBhON9@nMJwMhKp-D2X<PBpKO$MxxbkT8$yP*LKJaf?raF{K%23AP2nI*LDjooatquMQv"
    "wc50zh{KvznXKc8goR!?9*&M>Q<@m_u)(_xJH$Lcn>9?<(l&pm^*&!b`P173K2<mTe%icrTHW#7zdsQHE1Uh}=$*mfcy>2y|JUtTE36z?yR~W+u0"
    "_kn&Ylp~bd_A%mml*GfmnKYylzvDloC`*57X8w6C92ge6bRtig7>Pk1@Ls4=e$$Uf!(fzkHOrdVYjT-r2Dj{^yXXwX7a_BBYaXKWgOG&n=^=Uq4U"
    "uJnJW8P_TY>EyNjMC$oOuJ#D?MwKjh1i?t3I5&|hwfx2h*r31uEW8%$9p%sd$2evj91$xUv`B<03I=~|8c3E1HK0>T4oAp{V^){5((Sd@okZrUe!"
    "=ktd(C5vX2stp|4h&T*vq#y*6({QW8?27Qd1=n8*L>p8wes{sV6AkbmveuNL92tx5Nxd8%LAbrPzB(`UER_!-I+2?(`_qWYB9D=Ups$1I(d@+pt4"
    "AmPE-S4T*PMurX3soS9wt^F6z1({xrO&3p}mI7nSrx)&9l2<RtgQvjKNXSR3>>T5DEXNcqJ^pQxGtunV|ikD_yMV4sM^10?D{$8={aiWS^qy+2ly"
    "J5x1`3LV)1M(-e`4=XnqSswNv&#qwDK-j0V;RTD}ioVZ?wa-{}2&B>O$)#V6e87j4SR}Oqju0QH=1@nGN}{+w4rQkU7@=F{s+2WpSfnUE8!iieEJ"
    ";4%FAJ*3x);oO!PFl49tajQ%5upXRTL{F8tDsp&;>nz&@sT(Fro%VAr~|@rJxpat-xTVbx+#DazipYt)lKeKYIDkadWB6C(CYr0BIHQCDjI*usf<"
    "-3cxipgBbD4lyTX8xavU7SlKV7Wq;>lok+c5*rc?yF*jovde#<W9&^#)Bq_KyyK)T-(0mmW9W3`6>a$-&Gs;Xwh~LyuZ-(Y$cLL{|%}KGCL>Ofl5"
    "RR)&QR%jFfE}i_=c<n=JhA5Q<`#*X-gJQso$y1zXjje?N!)$e!)A%#gsMYPEf5lTfib*yPT1jlsj`@l7}YCSD~V3zzLm@d=@m1Tq(61sMU5D$DjW"
    "5swOX?`dyd>*_EwLUb99ik9$W+?b(_bMoQzJZXfxj;Q4ZzMQQT_Lgp~-6_UED&Ef6(rexbb#hw|4dwT&>N)Yi|kq`iRs;@9j?8xq110sM3TEgL#-"
    "8U^g;Ma)eM!%$n0=KY}Y#lEv;CrLp^2cG!A-%i3zWtT`cFj?JO{ju5dq7_P^izcmeMn<BHa=4!;tfjCRUabB-_Wcn+4ga;evTFhhkjt7r^s4wGzL"
    "485{SdyDShH^sDc_it3*lk~rW@Di1C1wibNPJOzcvnH>(f~+UW<Y2W9&Uoj&ahg)`7IL)b2HnNqCpaZvns@N)#@959Z(kw^L434jc5XEHsAb282-"
    "n;GP!};>yjR#<K+xj<V%kI#KgXvteR7%iZnxxL)qs)*qOA=7J+2hN=N)77IWdtR(AT)SQ{d&F7|a@AFEbX}EYN-ujL?l~Y4i%Q<~TUd+!qU7&lAB"
    "SlavvwJJ(o)|-LEaub8TIsf&D+a#4yz#~wyUnW#il{cn#{ks<QwVci#_Z*d@hkl`WzuZ<Wk#&<uk5Rs?_N8UpcMpN71Y&@%h<iA_2gu^j7@{CN|L"
    "G~{{}~ksb(~W?>iQp-%lpg`&%o=@652!|Jn%q2jB67)Vp=>l)k@i{S7H#1f|EwN9P290MH-b(DKaoWjI*T+1w91ZJOp#C*RrW6QdZ}uzsMc?;GYs"
    "0HX~)8<3gBoTNCB?j5~p0NIFeW-NOW;PY>6->7nf1n5v0Z!2%~74_=Cw~R1Hn}5R!KmEm;KRxE}LA?h&oMtN2nB2}Z=VLdjNNYVS->ouy)DU0w@|"
    "%HEquCBC@@^i3uKJYun~LnuSQ6|tp3xG6RfJVu7$d476c9ELoVu?wcM=G8Ct+gMmqE=mN7AhJXZ3eGY}f%0*O5vRdG`-`zdo?(x^$RHbNiKx^rrt"
    "OL$y+I?!1tH=J-fsY8tGC_>kdgkpP1VoiiU!u#H{i%gTgYSCtKZQZbLWO&*uT3@s1q+EC~;h6#<Quj)B}f%JzZ#@b93&@v}_W#wH(#}Ta-6|bW5X"
    "k?alT1h4xFOkV4x1h8Fr6wddftTAB(aMjnPgGk_#j!FQyb4v8MvPu>7@NWse>&C#T`U5N$~nu&uB}r6r7_Sas7h(G@wuLhg4S%)ICbLUg32RRilj"
    "-V(UodpQwlIrMOyg0pA?ms=ZQ>}f&@$&`GL}xgNn@_4s-&yG}sUw<l9Sk8nQI<A|8Q_>7@#rta(A>mBvbCLd8$%4&}+Ij)Brm>u8-Wk|Qzkk_;Gw"
    "N7|L~NsR(FGNd8`(0}&xo#dq$0HATSX*s{nG6L>U1B^^4JV`d)gP8+4qZ4B`^EimpF+g=7m)2qJOx<~YYuz6ZAHWR=5joBtNPc%bTw{<KnU>tMV%"
    "fmuDK)r-tpb<aO-<OG1ikwK2x86V8dRxj+{f`AR9*w=1Go_-P1q?6qNX%7svQ?&cmxi!HlLb|Vyymn!L#xBn{ff4F}&P+C^r9<4!qb|nMp8*#27_"
    "}(7=}2N=Cl!)*ph8?%oih^U27~sjpPve8My`S#dxdCUjl&U>ZJ{B;RmgXL>xOH;#w_2|PdoPY)YtvF|c8WNoJbuPo{Y+Ls#UBBFr@{Q<G&w_m&Tv"
    "uTf<n%Cr+9`6Z6UF!6Wg<7MS4j0CF#>mCUtRpl)Nn{FM9?h_6!@Q#g)3bLLhUQ`ub1bdgCd~qj@?&yrcE&)ErKJrD4PkX>V079-k04ApE)DdEWnq"
    "%BxIk^oD&%Ygig5=ZY}G9n#ubw^BM5$nxpH`77%CGa>U;^SWj?I`MZ5mR#e5EQ-cR~Ke#q}z{y4)V6FT5Iq0b}4Sm|nZF5Y;e1I|pLK<T18g_jG5"
    "BeTXjGYiPfMGGUVR1dMzNFKUpNi#-(Z>ULmG$*>m46X#N0wi26Aa(23C(mrtpvta+JKHxP6ab5LWj{8zqdEqyr6T!jYS!Rj&Xxw8@>DUQDJNN9%1"
    "Q?{*_dENy(B}UJWB1_)|=RY!yUlkDC6w@<x$<PkXLpvu4iq?fYiygVjg}&yNN+Cwv%tZi+tlI@@+m63&khRGCi=XIc<)tD)&V=u@M5YdFKt)&2Y2"
    "26|65C@*E(Q1F}_JH3~|n{w#9_K=S5bF?$|^(qL!IY&wLVD6=!o==}1?s)wD5TYlh|FlIG?g2gN}1<^2qjLfs2yK)4_%Z-ZWB|t%n6Io(X83niYP"
    "(~_kNf^wN!O=?SA)2e>qe^9@d1jg5F~L&S{9?j*${5CiJ5N;rLky$eDQSpkxN2@mxMP_QlNvW%uzPpo_&H}!PtXz+=K>v80e4AfJ5nqErS;<9!~m"
    "3fh2K^3^D`EXLku5}Cv6oJ9};&~yr2bwW>q4nw<n>$0J5tg0m+(JZ-`6K&=Ac_$1^R$@`_7OH|@~ge1BH7NMG#e-92~81^zjhc1L097VWG{>dDba"
    "`)D`pFM!~S{UhJA(}mW5@N2Wk{KF8CxSzqI7?hgI;*a6db5>O_cie+g<3WYv2AsWex=O81tSqP)6wJk`GBN<P!$A^>^P^Pnri;&!KtCY$DOH_H>H"
    "nq`)v2Hnc7o|4`!5?;xfZ>Mku-rK#n}~9R_oiLUJDxTV%+8Hx75ytEvrM!f&oVBf#j=(0s!IrxAWNJR-x2ce-W`B!X9zkTimduS*t#e(FxVV@s0+"
    "7yoI9Jy{X9dTVJFafE9VPc{ZE+mRh|*D>x@(IwJ-PMPoyf1?TEcNbPhVG^+w+Fh&&@0XJgQrw7*sL}`GtQX(A57Y>P5BJHmb(CUh4X3L+O28F;wu"
    "f`*=I`81BAQOUA9ukIG33~NbamiZ00M)d{W^BDv>v|>tmSj^`k>aG&3C_k^R~$AtwIyN{th94fYv?Zx)cA<nv`G_mn-TXYW5<e-G(c5BKC0DtuK>"
    "qRk3bl2YYtFF4lOs4n6+cD7DJOTjfsyDKUAq>WEBS4yW#MjTdW^27x!-*s}$r!gs7Ri=YXL1J3a_RR;JliY8$O0s6<9B<&Rlef1uwrg_C@v2x*@6"
    "QKb5C%v)uD*%b7$!7AI6!<!RpQke=i<&j-9cc!qg8D-Q8%L<8jn-~w)cCZC*+~>qx5xOu+`KCcvkK|qLQ6~AyFg%1XitgwrD0>G}70y{E)j8v!!b"
    "xklf40=Pi$SX0n%;HmH>R63+0+J3Cw7MjbMJ9oE0!saoqDWZhc9Iq^~3K5KUUa|4~;)c_7A%u60m>&zHy@0hIVQ8qr|t*gM*I`_7aV3y=CCgeWrw"
    "BF!VN{v986bjrd<_{^IE~tXL-;hBi-319mN6VRgvcGp|^Ow#sRP0n3BlW(5;~@0d0;p0GBEWN(<>H+)*cq}(vtOwgH%wfoea-HTbVm=`Lpxmbx9c"
    "t8+z88~qH;vx%_(mO$>3^)*XpV34#C~ua{_p2K$g6qUjLCF`vPN;Mqg~JKJ@T5*mj%8zsvWCDWvAsv%h9I*Oh6B)&<Ya1a%@vczhL)q!+L1KpG_#"
    "Ed&WNEEv3fju!Zp)?3A3Fy?;7L!Gko2qy>~KqT2l-T$3t{FBXl$?JZ)I-_H0bud;`rjV&|r@=>o?SHz#L7**sxc47PeGrl8c&8BzchpN%IaoQ?rt"
    "g5<DHBQ~JH_{<hiJ3v51*UwH!Z7VwhH^xeSmxRfoQ~CMGP}k{&aWNfi3IT_J_#uT&lqf9}W)X<kk5p_&aI@nV=T^e25AT5*QpGdE_(V{9R&1GX#j"
    "U<%SQBQ1pk%E3gb($}5sK!IWbc?25^2s#=(%kOM+deo$*uc5t+{(<#Ra?ZEVBZLf8D9L<(-2MjU`Og8At&ysxb>Z7}XtzRf8T3*x(1<gwS8t!+Oc"
    "~Oc(4{g6V7|#O}>B*@NM1_9J_~Xue3QnC_~DTt~*etVH8O_vH+z4l0tNrzSwh-v+DzGd~XBgLPCL94BBBytsS}YU<d%{`EB^W*5|sdrE}n5ifwER"
    "k?ASHxPq$jHAiI-UK-QM7}08xe1#nI=L#x+%b@SLU^)Pv@=Fn*F+J#_48as3@(*zN&~G}De<}vJl&6nv@6xaLvX|!AVb1gz>MXu39&0UCH>_G)sa"
    "3zyATfM=*t^64{?$dU-86+j5R1?@$9D}m7T(q*BwaS*p~vdDK^&q8X8YnF0h{XgdVC^5db!+z4a<WUIHAtB@#?qMZ~Ubd7gci%7Xsvw^<GJ6BqCl"
    "2#*|;6KOZ?WTO#2HPSC;{KZ|o6jWLiT+q4SUCX~SiWJd@M~KNRQaw^@lI||GdmNm{l8Hcek}B;gKW+Z8dO*AtVH88%qjV!qdf|&wzgaQ9p;!WAas"
    "l9~94EABP`mHx)S`b$3v~nsvMMpkrm}$tm=k9*7hJ`Npjwg)n0Xt#Q=uWx)tu{kO=o+4xFHrADAW$6$q7ooQM>50JK8B4>I>_>9w&eSa~$jUYllN"
    "}{ZTOd#{Jtn{WrRM$*~DR7n@n)c<+;NRxnycCk<Qj1;e7hDP16~Z+`IGEpO+h)bO0Ky>6`l#1a^rZGP9|uIckwzpuQOR8Nh)9N6A&I+M~|3_Q*gY"
    "YYetu+=;WVCtIZ4)<sLGjnEEfmBh~S0@HaKUo)ZNm|`!&R@7+h6*e=y2gsV5d~FQL<^UvKvy~-<!3o6C#-^T@Y$G8#nJt=9H>%96jyOfK3ut^RiE"
    "z=7(dxS5FIbC>5+pb)@HdZ4V-jNY?#Wx+$OE0IE&~Mc_`#YKH7K4Fax8Nah${5Qguk~%D7JpuYR7e`33VmhQu6KPi)t{{!Tboy;iJ14`_D=-maL%"
    "SjT~Wicti+vwN6c6UM66S64B(BN4!~W{iSn+{dHJy5pb<CAYvB%(#Q&#5J&>zhiL_m~J)<kpQgUo8%n55YLSgqZIQT2vynOAwAIA`Jpi~p~-C~M_"
    "ABpa1R(3?{S7aSoh!H$D@p?>z;(LG*71-$XH9aqDIbwvX8xSnH4Ny2zhqS+9M}5+t2LY6pwH!-%vReohO_D9A@4W;{6gv!srjlO{%PFA%2)OTAY#"
    "PrfiLcnt7CEP`QR=6l$(Gu9Ujxfbgv{cHb*XHDNv+jUD!n2&)q}5mDfzGS{qP&igZ{TRBFlii!Mxd&(V{RnJ@#GD3$|6_ERf%(>KNbjR>IckNU$u"
    "uji41pjjf`2xGNas7P;xM%Ib803K#qp|1QU}=ys%U#}}ZY7V$Ad8O6iB*hphjYwq1O0UV;79X^IG2wS)5XdQnag=x@l!LCNCu$E18_tSIW5RNo$a"
    "!>yGx%r<o-t*L(ghwxxZtLa>yg&lnPoM5cv*(36YIrQtBSQDm3IrT0<Jjkg+ep)=Fq6&;&R?c|mr_3<JYTQy`$Efw7@g3x&bb6~7AuT<uL^nX@Le"
    "<k)JnAq;E5iN_10xEZ(A(BD)v0ksv*&G#O+02-=-!yeQf`!)1{N^#*=x<JJeTl%taRF6pJkPdX}=Sf)w=5G?9J4F1z8VsO929;e6umH&8IHL$#G9"
    "nl(H<kc20+9+0S7%bt(ZR!MpreM<#Qj5p4+%qGZ~!o<)<lHe1J=W3>Ai9}ssY^=V3sDE6w&Z*;cQ7+ym)mW)n-&Ms?x+M{D^4ia2`Ry@s&=ikf+A"
    "Kr`4v6`{_G%nTf&3{ZwmT8uS^-$^0^MygO;0PkWd|Oo39<j7aB^Jv94juxqR_knzanRfiw^cHt1|<aoR=;jeQRLEl}7n~6&x1k1^&G{Q^wZtGbsx"
    "XkBYi6g?+9;T>$uJK+k+*|dX%!x~6GjE`&5;d%E+&IJ*9Rql<#XkzDs-!w}3wy{>3eH1I8m0?{Csxut{RDsMdqvn%*x0?f6Wkp&H-5J>u!^TcMQ("
    "~HAP3jsbK>3Mv^LPJw%Qr<Sx39WbSe1Gg^9;}PLWGMp2%~$IBFj|r=Kg_y~c@ghq~)880F95c;e=H8(du&_jGCw&T70x{667>)iX~ZBDu|8kO7K="
    "=Ace3L@ho$NGFspyizwhtTh}Jiro@~M3ewEP=sVNmS#>kUT{5e*gxhL24E}k#&8w@xDGAy2hOYYQ^cF>wBB=B`d@amGSQe88rBT{?fdJdQF`^SmV"
    "N96N$HYE&TtkW1swypv$5IHss9W9e4Qulh_Ilwrz`$tP%ljLb=_MRe&O8ecA9Ma5nn(Up_erRiGdZNdr(>wnALsxTsYa`S?25p%G!0HxQGB_pzy!"
    "-^#N<cFFDIY1YDA*NQsKL4o4|&dK5W5stS@7*d;z=j3VtwpYIY+#uNXtPVdINIGHFoLD-GL?ZGB~bxDSf!Y@iS6jEQdhESdpCZ*Z^93>epx+_Cm8"
    "&v>zZ5IMbuw6rwzO6B8c*whbk2S#3oR%eMD?%>u$B};yp!-vYmf4g9)BsLwOkAd|r)IdHDYpwKdzh_lS??u#d;rdfG)}#)G%ilU??XlIencuAkx0"
    "Hmp4Z2W(U@1Q#?)Wj!R&I;KI4faYbeu)i@1Rk@t?Rl3w*XjhMT7M!0Q@=WTK0v!S3$+ZLT9v)=Sw~^O-pR9LZ}y9i~=ds;*uEC7VKfU8)!yx~>ws"
    "M$cggrx1p8#r0&OTv>ksF<YO8ch3`Nyis=6`fd%#R-C>l4Mgh~%;#j{yH2h))?*6jNk;4zRM`9)WuS;E@qU4G({EmBezDf<k+X@@=q1H*Sar^0+B"
    "iAirs0Uh$BkEy!8S$wx2Z*+QW^tzlw5X=dycz*E~V;Z_bWaPJg$Nl?G_rDX#TLX7L9>$cvV_MCal|j=p8k(4{a}1J0(VPVRqhw#)ko(X=7YO=2*g"
    "!)jAz7D7pdGG_m`=oh)|FT5+Y0FB^oD*2nD{bd$>d-nVMD_wHivAI<*MXxN{8g3>NgJB&8dSGfTwcqH5{=M-|q1<|<`8*sUJ$H}{+0@3{K$!C6!Y"
    "QW}RBd;}z^4^j|*GP|M>Y(mHn-@RQn%3}xDCQf^R)>$MKf?P3h7})52+f~{TM`)KaWoXs5bToW-Y=W+34-pOMDj-U#6iHcMd9PIz|LB=%|$(go`+"
    "d3`R=!4BLhkwJ+s5+eT<KI0@q8DVDlBs8Ju(V!sZrA19fkp`BN{kYaghqxF;M>+-#GH2sm?b-o7UL)XibJz|%(amG`5j_<C`vUO0XWt`7$t9Zb=A"
    "2=5Nh=B6<`p7`JanWkHXOPe{KOf&LG#x2qlhK)UFM5=HGD*<_-5uW&meB5r!+t-<~uPHuhT8A*zZNw9*jK1=4i7e$c%f8J`;6>(rPXcB^{+<$#=Q"
    "Xa1((gP|p%)pM6OK1&Z83tmEFuWHdtufPN)2|~4#yMgOPyh5*kE(h+;UU2HYy(~3Sj#bAEG#d4f90Z0~a95s$E)~=q^qwFAf^sxboOt&*L@S`NWD"
    "{!}Obxu|YqpB`Kpy<n{sO3*}ifUF_J5UQADR|IO74tB<{K;VXIB%vv~goB6VgYFrI;#89&ECZ|(3{cKMyXxTtgi}7qJAU5wZk`v2oJY<rDdoq)+t"
    "WKOj3wMyZ`}C7W943)oN#{B{?mzK5p6v7E>Q0dmLq2@v{di!ffcsv)h)OI_xjakC!b2n@eeU7wVx;Pn32##~J?-&!Q!q>FeGf!@<{4CHHg58txY?"
    "2rqF{Vefk{N2X78m-%H4QydgLechY)HvNT!{UjblNO(W$hVfFN$2#qua>)ehcibt;3JoQzJTy?3X;B=NOhhc+!Wjl?F`fNymHhVK#Avh%{rU@i2j"
    "jYPE7^x+jl<(FcDHjo+p@?|ZxgzuXU=IFB4fQvgr{;O8tuW8_-fK;517us;HjB?$m($=DRV(HiK`g9}gI~Lz}EOG3~XI-U#&rq?TZ|bDNYpuc}RS"
    "a4$lF_MaE3D)dE_SL!-3m_-IiQwLi-p^AC-IyDxXz9P3u9pOAVDb7SCgGCpfE>H?n&P`h(IsWCN(KKx?n><p5g%~#p_LlGf5oe=g~)<<nu!07N^C"
    "@gsznHH}8^MkC7LYMTRwPEXky9yUL@wQLPjb4#;sn0cs;j_`3UMaG)BH`R8an;c4z+QltwhZn*@27H{7V5O@H^6AEI>>v6MLUOQX_JqDqhKBR8>J"
    "${AgP*R#|Rh@E~hH{Ll<F*=+4Z{+#B}Eh3XY8`zV~>i90-_4w@G^Y-O;gDRJ}v-a@B@?OQ+c!#p9UH3=<JSJvxC|otzshdIx&TD4F}J2;i`5>*+<"
    "iL6zw&!C?76n&cGdIhNR<lX2X-DOcJ5f5S8`WJt;Ap6#R7Q2dBUu>C~xuOCXXwwBtgWG_2{;>jI4*b(hasg(}pYQbV9e*;hbXw>^sXQ$>-)LYip_"
    "Bfj;i=-4m<+iH9!z==&yky*qXaO(|$;y|U+p*}%}K1WqC<20f=c0PkbQT3*9*kz-%XW<U9U#HNOWvZ1#XAeF@oF+`2ecfl3_Fqeq5%NOdbnGXK9i"
    "-hqQtQseR#DknRwx@4i{L1+7$n6>6%~;yo*WcG_BS+t981q*vVKFcK4rvK5rhE%$*g=+=^)c<Wys~5z7%(CjryoIeeCz1TVq1M_spcXCW<DLOXDw"
    "c6UgIcR%39<ESTo4#6EB}M(=Uxc)Bmij6596Z}$#-?B7Vik4~Hc?71@n$jUPIfB))J6ozHl!b2o0%Zl+22ps2D^JvlICBOhx2-}MUACj$KLGMs-A"
    "VJ@YO@h)6MTo6Iu{bvR=7Ce)U3EqlYZq;RaYdo+&(3DN{k#Xq@=JJQ{CnK)wwX_lvI@Ef8J*JDh2a}QPw2^M^QF#(%@FGVFX5UVd7m!!3a;t9AtW"
    "H_s6F|(v<jSy6CR?%VJ~Bk-BjMk5?RH=40|C8V{q+u#`hO9Ub%3f)d54(7^I524PHVyvq*e(B&XkG=iZ0&7aRsD=qM0}pTKY#$pKRUheZnMxmgD8"
    "x?luec8X`y5Oa%wid)u04MeQyDTb&cWX7mK3%HhRIICF3dlX~RksQ+9NsNqwV<C!djj>H48bT!K2M%705L!=Wqk=NMy9REn1ZKGbk*63ZiPW8xMV"
    ")$g3Iv2y`aTH#z?{d4qSLle95TW5_5o$uQz%<Qq3M3DUOw(zXmc6(zm_ILuPsHoMwmo+MQUM90C1}S-LFk@>3X;mm+&WfC+6euI(2g$*<!nN_X2n"
    "K*6BX2;iZfD4){tJ$OOL6k(hIf((DE7K6?Te2$pr48uBm>7C0UE8<U@Ng4RPN4+OFL)0;9=)(ENW&ycikL~kkt7z253Y8#%^o#7&vyKu<QaVDHid"
    "}>3W+0dMN^ovbS<vk>F2klktiBD5y4`BoJ_C<rG_wp2Hc7$j&F`<?m7ZQP+IC3yJx=UJj|F(w5D^o9whY=hz@WRom+W6)0g1GwgYTkfSD2qrXb=@"
    "TH(E@=C$JOKF*h6rE<pF4cAG=m1`l?=GCH9=>G+u-*HosXUMA^;~KX7VP$DGcMXgfwHo>_oNQE~Wba6eHv_Taq2Z&NgITPtT94w$*$cn?8D@iova"
    "QK*?i`jyrC@<2tmM_)tsG+-@rR8RN`NWCTmIk0=+*zMFBx<0gm$c$GCIy!Kp{V5fWOL`p92$X4b`ilN0U>p>tjvItsMgpQ@y@4g9A&~-=4A}<8hH"
    "9YG-sVAJBQXWlP>YaGrpKyU;%GeKY3}~$?xlm$K-lw;4N0f;tp_ACE0`j}4yt}rq5bbYZ$YWC;R29Tg}X&_<w)PMrB-QU+C@A2rE>ASH~p}F=o9q"
    "R@wm55xiN7<B|>Yv3*{54qH7qfY^8Utr3xrUKrEpGbccS=X;_kt@=yi9`a$+jZFsyg^}=|pf(sungQ5#p8=FovHrV_sp;^2s5cJr2Z;M%-{K;O5_"
    "A+@TcEl#@)z3%71z4_MeQm?#hMA?-t+FhTG9r#HLtp8X6V-t3BOn_<${xIE(Bh=3t{0|A-C5>$ynM9v%6rrI_~*j{o%+X$yCVU{hH4<XbJ#SoAOu"
    "+YB`D2iD!48Ar9A*sB@@uV)(G`Wc_teM;7}Em4^*B<l{dng7)@=vZk$Go{RAhBVzNA%xF9UTFSz@WnG389?<Z0~&LGE#^}+YMqKQ*q9B~HX+{O<%"
    "H_a(s?7|~>@mSevSbbA{n6Me-WOQ0ZSyxfeFdg8HsFBNiqi%nY=vr35rrjJbGJWfOEcS7bD3UQTdX<<Y4RW0F4`)P^^-)V76dk0{-T*V2H<m_Sf-"
    "s7vZz@UvkdBf%97{sG7`iHcuEh~bU!bt3FYw(O0h=Fc_&EO;4KEYYWPNo!T`Wufi4N_R2#1uhX2#Ukvir+zpzX=HD>MG$D!KNg8W@dl9W=l6pjRL"
    "zLTyiZ{bFk4g!DE<L%oV~ZLdN!9KMnXx4w~ZGN-Nf)Ph)S=E`DO0ze2pKvl)9yvKadZ<lTA$bEHDj6mAhz$+|RF9-D_gn+u**^tbqO^F4-*1W;-f"
    "*Ck($u!Wk!uz-@!*`A694X^R>s_D6r!LS#@#6_sd^KoZ`A6Y04wtJhZzu<Bc8@gz)ppPc-SSJx8+$YXnfTg3IFXx|ltMGgp2I%e>GhlR^&d~+T-f"
    "YZk6MGe_lK`XG)N0$AGtC1(U3s6L4K#1aK*ZDD^-u|+5Er(jRtW4g4oh!mUnnrDK+3)m7YAQBuoe*#OE99j4I<#3MuYT0{JcHYdvK4^zfDeLo-u!"
    "ftQf(<DoQz3tJ5%ALl0}3ok9qCu*9qCea@OXt>4o<iH=HeNfA7L%dmJ)n}tCbQ7Fk5A+Fo>Ua`tnj!;eSClxn)(dcU5E|}D)R=ax`+{YF=bCuH##"
    "8Q>1{>yzi(h!v%ODOysy1*V+i7Y#9%DkKJk~kty>E@C_(@KzJY7m^^`hjb5*@jhRR>)gs)GKU5is7ymaBtnij&_64KO;|MeCj#@KTCLH#9yKR#sa"
    "8YCH%$u7T^x=zEEkZiw08g*vduA~-qE#lP3jIyGGZKhG2}Vo>@^3}XK0(9<Na$Hz|=op8M1dgA7~9V}{GE{=zYoL;L1JjyNTsUyE60Arkvk~FwrV"
    "rdCw(&MY5=Y7)u;A_+P1PV(EKaTeRu{C+68YVpYSke_&XQCShCe;KO)O`yQE#u1<i5;vOxV>^w5qr7pt1)*r@&9nQf3|)yYggAO6EU}OOdj-XP5@"
    "oiI=Rn@l`zi14qmh#Gp(lzBkUREX_gO)#_VM7@v!G*4M$pSnf_$8^&lQQsLfOq>XI}aaM1BxC{;HG!0(AZDaRhDBSq+}`ri2Dh*z8Kae|h$1(hY~"
    "f6RH|DDN?IrzG><yOBbL8$F=s%A9dJ-T>t4j-_cxGgP-|4JZ?`YMjSrG~)|2s?G;nT9U4Bp!**u{J&3#;d%WJ_TPQ?-z5|{^#6;FO&!qni%FE@Cd"
    "N99{##fHaNvXjh^$8xceY{xnoC&DX*i617BG0ej_8h~Spbj1mNL+I!rGw1e6NtrKoA=0vmh^Va!;!7!5G|ePJ{r$(gMg=iX9sBU#$N_HQmzRRF8O"
    "|geqbKN*@8-lt=GJNUR)PVkIbqj*XO9Ir_0?Qg@8m4%8~blIwtH8=UzoXM(g_-Rhf)o=*UBe<gJkV3n%GE)b12QXb{#;wMR&K{(gq8Yp_!qkidK@"
    "_3az-Xz!Nw5d#y$y0>60JVdx=8-}bsj`*=C~gMGLx2ehjkB*Xpp$1zC6{81GZ!Of22x@Dc(gZ7$efi5T*4&|f0L3LO&SL{<;=nKITk8iefA3Oz)j"
    "JvJ^TX=s`wZiZE)Wfy)W=~6b)>S8~c?5`>qFMJ~Q!o-F?J+cO%5Bjy%7CHy^*^;m1*H(+3)pBktV=l7;i8-FWzFpJ*j;lZvsOmEOBlL<SURV#asU"
    "ncDFU;m$Myp!XWceO8JXa@s)%Dw?tZd*NSJ<*lsg(U-)%Vyad)Nm)5CH`LsZc%EpBRPxQwBj@x5Ce{;b)0k>^S*n%>L^wNq_nNdBN6BUMVx^*h*b"
    "$J**RV~^9kRNP`(0Q8?oS&!ekVL3oxZdkiRTOHTV<?shs`5$^s`QMS><!xB~I7S=d_C_5d8F4Vu>)7%rJiHgk#o;Pp??JVj#l;h&Wk<KnLpMp&LF"
    "$1p#O&#D+<q=QmD>h>4+BL=20If5R7=>@T(3rqUZ7Dog&TQSxhOIy45spcI$mJZ@Uw<DlB9we^p5vSA_$^<ZIkIyz8j2QO$fV7A+l(T4C*zfO)Oe"
    "<?oQFT0VA`82qnNPbKY61@bU9u@&^u2Jpyw!7exD00IYh{C5hF7a4ZepY8bEbkMgsitp>v^9Bs>Hn<h30yf-N=>FgLx>NCG^CjKrzU=YC}VlacXh"
    "E~K?(ay=q&6@P^Dwzm(KXWU(yZXplH8STpBj8J>3!kwO+~s2hg%!-q)XmQ9$OHy*D(Tur|nSozKa=;h%|~X1~0ZaNHb<-c3!qbD8`)rBmfIB$Km_"
    "FMO>fw1BR<3^N#g{1VTbASeI+jWk*GD1h`KLEXW}z2LHd)6qc~<w^b}E)a?GdmMd)WF7B*9f<Cv>3)DQ5Yq-Q(blTyNzOn6G(sjVkOHABT(aL+Xb"
    "5FU7{+?|*65S3%Q*PUkOdV(!!fcj1}mp%mGj4m>;t3*I)C`1o;ttI3Ak=)pjiyyL38^NH;vw&7u*m8MUh)1PSvRyuk7qZf~}(TaK))@sxlt5;A44"
    "0DVbg<*FlZDmV`iOiWLONZh~=ym!~yOhBxF^v}D#$1SPIEC{M7^>y3nA_6@5af(t-z1>KFWof5rrX`m9Je>VDnXxFq#N?C%~Q+b|?z6HR2IkZSi<"
    "U}S({ltm_%<ci`)1KJ$u~X2d0VfY7!h>suqMj0u`1VKg=MN|hF!7TGE_&4w=+mS5)Jlj0FZX2R@$}H}IIVv&htU8Zslmyn4o%1kALU3ZUk<k!X5p"
    "i90cPsqB0*Xy*i%Hl;QCR-qUxGF(AqOK>mjuSsiJc0+nWNF6i>QShba;TYme;TCDidmVXXUpS6olV-98VFE|@s`q^#Omxk>n$yOsh8<`i@c;3l*g"
    "1!w08b{Q3aU?`x6TyR1m9o*^=Tgd-n{?oAj=CFN2*_a;E;X@tnNTyZ$kPX1jYl2KU?t+S0y%aVqTi%+kFP4)R+n@CX{P%-;MAL2Z+9lxc*Id~Tm>"
    "Gxn20i1}SUN|a%D8V+#UmY{d!E?`<ILe^<%$xjsPfYYkk|xlrvK3`Mbb*5*7cu5+g$+rXM?mm9HRsK>Sum->G9K|D*#lEE()UqbtGZfe)$Jyz*u4"
    "mHk(;1@Vq-n-Sy~T;!0}rb<|WL{rZY(Ao}YNUK>P?RVy)XH`78Q4p8LxSK>?F`rZmDplnvEjhm#x<Em~}3#~}JKy(BtMOeRVh@J<oCsx6@ax{$jj"
    "3eru&oL+b5BSkvjq`ShJEV%(?9Wx~iUV&Spby^d_)5pd$C7N;2#CRP0JHz<hsf9$7C5L@5+;<k^izO~p1aw6Na@Hev`cB&@fT&&$&7ChDfi+#7Kw"
    "5Psj^@?kV&D^@$9|)hkTMHo)!oD!HH!8AI@QIlKJIebc8@A1dzY^nYu`rcoESziNIh8_|hslDJ{LR7L<NE39Ic_Vx;EJRj3-c370MM-5DGghQB{H"
    "oGUzD+#vn^;lKgvOj~$`OQj(&Q}72PZ&NyJr?&p0+XlHOuFj;OV}KGMtaub4dnc%jsGg^8($A3S4M+oWJ@7CqC}i#;*&XggTafT)i@{@HIj%uc0F"
    "K22F?DnUBLs#wUWL#(H9XFY4b?y%Y3!|m>_JASo{uiv(f}p1I2{922hC0hdvWHKPBfpoteigs>S1_a@VK1OLlL4-4pD@Wc*nx&7$8iPq(B&={iG#"
    "Q*->>!S_a?9cYK1ep=ME$d*c1zptSa!Zqo&M80?~cCbuJj5=lrN@m4xzJ(11jHgSi^Ae;T44R7Fx#JK};DYWHs;~7y>H7$YS*^X1A4Ix8Eu_VLnv"
    "1v+~RCMs(U6l0Ak7NLi{;@9F3jktoIM6zA6;o5t%OPaf2`e5lj>jsA0*)74PaF~PBUdM61qy~0JDA^2+%I>!Paesl=4RtN?nb9p(KQeIksJ<Dx8W"
    "XBf|ye;Pa#aq(ZymFXpL0EGC+6LfMPUrm;mZVc{;NOj9liDf{qR%*j$_cx$?}VK?(Q*C_%c%fwLofO0FTFvczBmRoAJW;g}-gs2Sdma8@>AFEOBE"
    "TSDqn;8(gpeXcWFYzWqif5}^!q6|CZUb~R5^z#pH(6J2jb#)QX7Rk)OJ++T>isP=N&}l*eHOOt}mM}JAPsYpOjxiq8u3b|r(irxj9#U+?5=LzjY}"
    "&e4U$~@s;ho#CKHIl-Bx>at+kt!a4^0soqe!GB1$CeGY-IZJX8V)ygNVV^`5P}l8gRaT-8JDif)SGlb0i>aHf&K6ro&^_tnS|P@{W<@H_3@ds+>C"
    "m>?FEglrC^QvAb0Bc-OKJjtqRoxdA?^Dz!MFMUJbC^8DRhks0Z;&b!_r)kZ4TmkpG5rwvRhB>a|1i|hcO&YB_kHSJHS*txkw^!mM@aVsBm)**hO4"
    "{2IS6!c8-yhi<EkkChz@tt=@VAecUKyDX=gh5tc8jzbso4W)bn<(8=U^GFiJI74p-Xk_E=O0d~IZO<7Wt`VLX4?1OlZ0Qk?waNbeY$?v)}dML?mk"
    ">6rdVO1;^U7ynvgH|vLuR#$EoDQKTDq(%+mRJC*qL$d#6PIE?)ZkPd+S&hEIIh^Nt+{x~PM%q6U;b$1G5~P3n~Gieau)k3u22m&}r14R2n?F&a=j"
    "s`3%!m$U!!?kqJ~5J@kVp|`Uz@4dfMF33!0#nCa9dw+da%(w~XZtr-yz%w5QSE({UuNp5_oR{Ba2;?RS5A=Duys~Exz@8eg@5EBuT?Y|C7#m+tyK"
    "@_eDoYBsa2Sx^!FM`-wJi<-xrL~&8E@xkq~#h|gLjCCVlWPg%J*z_IF%QU5aW>)-q^kSs2z01OE(5)*O+wx28jBWI%&dI-aYZ`;T`WHRT7&u-?4K"
    "fmGw*;NhEZ!Q|WfC7u?grmVyM<R>lg?+E<rOd)LSZm&&NH$at4^r+h`+0E6E)icx+G;gQS}!dg5M%S!mwsv_hf-Z4+Ko{S&*l6BUe^cP#%cb&};0"
    "mU8+RhZp)(DUvGuC-KhpT=>fCA6xO4g2_FwY6k-2t~Z(y|3<(aXl3+-J4F5-mf>nc7SB2BRYkNZt6NkpbwT0lF_Ma%PS-=*ZH8r#OAAaJsffOcO#"
    "t2km?e*JAs4J#IHql^<$|?EesK;CJ{z>wS;ng4q_ct2iTg!Q;H`Sr=l)e_rr^N)49qYJ#|}Y{!g8Y(-tZJPKpY<`_saAy(CSLy8T!cVM2X;=*Sy+"
    "j6t3#BmIEH6rCUzM@!T2O(*URR)g+wD*ZkcS1;LV(|9%8lRn*Zv3UG=-k5||7DlK*xD9U5I_C0-;6-Y>G&U~G3IB8OX&2`pbwr+5zt1no*T4n2TR"
    "_p3bHh(6y4QF2Gxm2JB2@e_!NU{n_S5)aqQ)z=>l|dTR72qVo5I-M6qIBd!kyn@;GNR9kjLf45P!ZXv`4C*qZe#KHO2ZT2BZT|W$em*;psUl>Y8U"
    "<*gza+Tun0do5~03a?>-4fMz*YqD6hh?CHuUB&c!#G5dpDID$LV7mBko%D!gSu8PsO9KXr@q_unMPSkyNMG^@NB`U$-%IjuBsu-VBuNlI(#0c5++"
    "h^9oj5CF%+%;6vHBTdW3*qj8dHX$2#b;rJGJ~{-yT83n+O%;)KeE9yAhb^oL2?)YH92)Jm^68#q6qLs7$bUAA%KjI!t&|hqQ}q5cw-Xpr(q-PPPx"
    "o?Z;5Bs!P!Sl{v<c(N)>tsei%Y)+G@-+G9wR+bLWGd(tI!iKp!2a?&^$--FL~DzT@!@Q>;hGTH_I|qOvmb%d+{Zjb6Tj4n_DI3j1D?4w)h3FYN|<"
    "Y>woPU#A-EOm(DSXMJd9<B7-4FM=n?w}zJtubSQ^aZQvy=h>X)`xnnJK!IShj(r{3XLj&rCC<1<K@~w$(v=9rBnZ)foeBttQQG<gQQ$g@q7M>w#L"
    "Ey3(Tk)Zp)5#-F3|K?)kQhJhy!d|F50DOP*h$pO)yMoP{>L!Hdmc4E<@B>4ISpV=|V~dz@pDjHKm|xUWA*WJgCop^lWBTYmz?2W6c`qrBG}<x67_"
    "#`v`^~^YA2n@GKlahRSFyEWIFXKZs@r``4wj4#XHN@_*qO6M$)qZ&^IBMe|<+kagqKBf0qVrMRF%N9ZJ=4mq52Ly+|T39aHjTBqK-yJM9#o~U%%%"
    "`QmL`P595SVC|X1&mJ%QVw(bM9E~1mtO8?n<V5`6v|O-1c=Aj2nQu3UQg>CcsJN!w?X3TPwy^b>H%!|&PoV~Nq*;9ZTvgDQ@2U<v@yM3@}P$L(Lg"
    "v@#F!RbVQ_yf_}lb&up1RS<608fSknoBvLT4kF$IG%4R8Vhxm|Dp?p}DDljO}(g^gXQzm8i|=ZSU7hAx^H-EzX(Ad?zcT9C#A%6THCs`1((r7|4c"
    "q5x#RvOOw1EQND;oem-h^B^$MtoZ>T?no$W!R<UEOvvO81Nj!*EDsCSzsX4zbxSeyw<d?8<p}7Gr<WSq8<<Z$dR3otZvz6XZ4{0I$`rXaVYsBn>B"
    "wQiMM8f7xC?$lx{gx}0To+KBrs}CPRQ18*?i?$g(CBgE-e9;V`a;CVcZrA6Pn<wCJBq4gfs3qj>hmaP8u0uTJos$y&MydcoV?o;Zh<R8XIJS9Gvh"
    "T4~hLSr<yy7!m<zpJlLoC1jE@`ry0rUQkF9qKPQLLg_6<C5m19}K3jV~mYWBH+pYH_Zq8uHV#6jB`3obP))x70zy)(f;L7g*!PYC!pc^M6Mh{P3I"
    "^al_RDNNO@6ywZu06kuR2n`C6H-hIhI9v4o>Yf~Wev!!0WKV3*sy4xS*wnn4apG`|KqRAKm;=W&4KO%w@yuc0CFn#@FOaqC=w6foOoD6JfKZ@U{R"
    "742*?V9k(b0-J#4g(iT$Ie1Di1H&T+vCHwI=L0&hBAS{`^K`O)hnmeCtZJ#K^9i2j8;EBnV;#iTrDS=4ULqi<>U=xe9BBaki$!7HY%kvuz3z?TId"
    "dQ~^We8<|#2n$^86QRpU?S>HSF(O_EBg@Y+R*P5<E?Vg*6^QxE4IB8NOULJwD>ULTdfZC>YT|AJjDb#nRNNhBg;o53AhG232_CfpH<reJI-rOxP}"
    "wcAL2-tlb8>=KvLQOnd;yea^dIN*lGu*t^A-?#hI8Ot!KDN=)hhIl2eqn}G;C;v(fH#j!Lg*KJ7E&}z=ef}?kj*m|DmqR0JxcY%VJG+P()~2@v~r"
    "KhA8gFixh@cu%@EwFqN5#xAcJU^_6;z6aaKxL&LrYC)W?%=6Yc19!WS;dfS8VD>C8z4aA2YErhV<6G9u3NvX;kNY_lDy59!iOLUKzHX67wD3Fk;2"
    "o7DV%_vS7*7JfWVTa?v)A<jd&^+b?VI7*!1HkNXW~V|OURrwO?v`v$f^W|{_rldWsAe~hK!|ge5vH(8Il_%nUy`_rDcK{>cT;Spq<s;>7;BPQeT`"
    "QP`g^>XOHMrl;2V9=gU_TsGVjJdAi~qi5-wXIm_y%(OVO(nHmrh_ig8|czi75y&tJNd0D94|sZ)Ne9-oV@hUXWp^M%h-6FJ$K>X;w-;!^Gd6Ktzi"
    "H!8TCK*|p?P`}!x=m02xHpIe4mgp`=M6`e3yI1{JhbjhkVgT!S_vQ~+Px;EL6|44K>hVw+QLE{R0|!D1i!)F+w^J*Hw9(?;Q;k^Sy5vY7U#@;I+W"
    "=ytRdi4JK`FiuiJyB=OmA_@cqgtBks=f;mt43fq9h3*eS2Da2AJNaOd}P}BMqdN%0eLc#S#UT`U{kmu2!4r8QG}NCZl4N6fw!z?RsEIppa#!M?&r"
    "DDx+kSvFCLZ5q}R(Oas;F+rK{_dP5YbDxI`Y5nDf?Gu4$U?n8uhxkov8lY~JZiCZfMmYcFK##OjnZzFmu|7-p__x>BAonR^<BMgf7X$9O8zTmj=4"
    "HC)LcpTOjQAHB>CxS(cRj4MX@`hP{@J20O;Z~OEIc^el@PTB>i9DEQ_Q?mNj_+=HhM$HJ1spyzg1Dn9f>bI`G^wJ{03%S5K=%7AD|a_d^Rw}F15g"
    "-5KmF`+vyLj5aW&<kHOi+>9P@Q|DAsOcE-8i|rI+5H{XBd!9M1R7Wn2n#C{L&p`Gil1<sn)y9uJ4s1`qCz7gq83JN@1nhndmiaXu1o%k3zNk0WX>"
    "93SC$V)sU^(5I~9fOpQv2J4p}W&}a)2Sp--+USD|mcZ5->gp1hIXM}f%9};sj2c0eZx|4v6bG0;gj5+PJ|OK!+~QOlD7Ml`U;H{$DLhh-^7ll<Rw"
    "s0}`N;<%*+3Ay<|0CS?M{oqo9}r%v4qkdpBER)WaK=X4M}zqVH}wuv*(VI8e}b^!u1yrPD1&5{ZrysK$P61OcO06f%-S{bb{+yxy2*kbjdj}soe4"
    "MyHhSoIaW9?e+$MTJgzoQVDeQe`$T{CL}jE3YqX0M1(-6j5`gjynY+*aZ_g-!U@+B?jVLSq`^8_6m&(YT*hmj!4bt7;7lxt-fPr*Z_NiO7PnR703"
    "=zEn#)fL3uqO>nC!{e`v1XUDf*ntMMitGLYqSMO=l3VOw(xbvblvEtkP8(z(?sOS$p)v<aSfKt4I)h&avRNGEDe&-V85(jw++mvgrPqDN~BSYcR?"
    "_@6|K9#%t*dm)$<2}IHvLKSbf(s4d2JB2gT6+$@`5@zuNdr4D!A!j640|Hj9WVVmen;3>PYhuuZb^rZ8qqJB(0KqRbmBgHbu0y_y?<s!TCe3#ZQn"
    "5g_{nBY0SDM8ko1#J_lM8cKi52NRJePOy^=xM!>)17<2LEhY1FOICp*rT!-3`N}VmYzI8u%wwMdDC-b^mdE_#2ot!8iS$OKc(VIB^|;6OoNn#KFP"
    "n@FHmwptVi3R%Fd9@-*c7tAe5$*|ejHvVfR~SFhl_PMMl9yDvC#vDG)_hW4CYJ@xE@H%eKSGLJqRaU-b#V@t1oSSOb!pP&kiR%=1aJx!sT;j95wu"
    "InizC)4QKB6lZo3KWU%C^Pkp$oYauMB2KpAN)--01h0QO*?>!CA6Ro;&LjJ`IfLGj|5<{u`;bspYA02BEHtrhBRDQ+N*ouYm>9oz$K%5FgaLs?{w"
    "^Kr{sf;)1$;*9^ei|EdiMVfg0&2IjA=gw4#k{dM^_>1#F;QH<6P1xFj9ed)XG>1RuUzm`q1PD%5xTW5-NVMJ=~IiQ&xxt1zJhPeS@(B?V2>vb<US"
    "|4EwrktMcFqPm^M@c4h^8)ZjhgcDbSt)V13_}AevS`GyA4|<AV*L9Irrr%0?k7&x{`|J|J+)=r<ZB?CrTklqLz`$!&#amJfLR?_(`G_Hx!!hZeA>"
    "DPkjvl)h!02cAC1k-F}7d=xztx{2W$(k&!m%?t>2JH&fTXtbBK$XOgD#6g_eAwb*_$%H&6N5B@<0L8nU=(m?H`vq{1Sa6Tyi7WAJkMd%Jpr5D&nT"
    "JV4=HN*cFHDuGYGeY`3=mEpsSv6R8byOhLTxge%|k$_gR@XiPF|lh-S~A3UU1dNdfI3d3;A78r@v@+aZzziLA%{wn=u|mFWdBQ;H5Z&MTa?o_%XN"
    "|O4Zt3KZGXMuQ!v?kr=|Nl15h*7uS>$gl&B&c!bCVt-JE1N)jOeBT>14EUFyfpf1DB-rZCHAx0UqV9bdiM*(x8CsteNHKrb>@L2?c4+(tXem+T*d"
    "G73!y!o!UAP%8AdbuVaGS!)>#y9aGPmSVT0^T!TDSGOaqNh!WO+C<&+pNT_9}oNz6-3X*$W;1UKW8i12VQEx*8{+n-XSuIEV9`+gAs)>?+6?DPHv"
    "z!!oD2}BIu7Rfx-dh9)e<R_4&DBRpR*>iw%U)BpGt4na|IbsEkw#-nM{n1;!2<w>-;2Ifd7e-TeVWV;J&h%XpXP6KGeHXN<LT%mu;FuX?w~`X(Dr"
    "JifGyjU9TcrahHeDp$UUW*V;YL8wXJ3RZS?Y1Kv>R<I___@*(>ROB0ko{DCTnu&tAfyJ4W5u4|(A0@~Z`0~Un*e0(T%$;=+NXO@#!44BqdLa6ujH"
    "cl1Xwv0FFuauk`VSTwWEJlnxiQ-br-_Kl;lddJnMDC)%13Mnd=Ku#^~7|CcV47+`?(!L4fvsFU?#o-bGjgYCC5SG%u2tOz%bU5d<hDK<=vl#kPZt"
    "4BUrc55Uoly!h{!Fl9TT8@&I+1Oa#nnplrRwc<7A)>yxxrKk<5hBDGlo62}oj*zhj8NEOw+A3=VNUqu2~n^uW$4=C4In8IeDuuZ4Xh=Rd@dV&O;b"
    "q_t4Ptj1Mtg{MI*h6&*K@E)!UM++#O+KBNNkL8FN-@@To@wDN9TC+Nho|Pw{PJ5n0v;+?8%U=J94qJknOWz5Wre2}SgV&<nV8OpM*=Eg%@v=U3mB"
    "<oP1?2}LYubtd;k)3{JM@vF1Q90z`p=UMTGBSI;ABqXb@6{3xftUfWcKPb!~=hGUP8O1S1<d05D<M*v8|-r$HGzoT<OH+ehSwevJo;!IZ)G@W`wI"
    "ansF#7s54eegf6X90c0=hONOT6}fuKh2P$Fv^OBb*c>!GxB9>OTQUGxg?AbnOxJaYc8T*eU#f5;XkY_Xu!`cMEsG5q%5rxMaa@FJ-1a0B?`M<IQ?"
    "Pmzh8pqYD;R&p^NPnSQ!h+JQO|icq<rz`Yly}O3)c^4PvDY#L#APB;}JE*<tS2%yg4*+$8-fE^VHa{?ad!RTJ+~p(giX`d|G6d_Ojw4Peb8vdwk+"
    "#_A8E6BxP39cJJHM6kvY(X6r}Mil)d>4dj8hCaFQUu{&8jG7e?>SWj2z#3%RHbEJvq2BZXAFE`+hy)ib!IG7Uw-H8}_c_>-<)R1V4#W5tO{w<b7{"
    "TlWoe#iWXv_+Rn;aEC@c+rVPv5S@!k>SE)3+NYjwX8nQhpAmV{2x01KKK6qZ7pc4yfWn*+E!belr7>@iq?hwTo^>BiGnhSxt}L2uD4R1n7EYq5Jr"
    "@#;P^G|XDcaA2E2q18dr3M<7O^7bYNlK8G7@B>kQ85wixN|1mAPldWC?psXf31SUkh-x{%2c@3OSQ=^V#Tt3N~Jqhgi=A0OL5@sF-)H?7{CTmqX_"
    "(n;N_O@2gV;fUA>jSWU<hYP`Q{I?fE<B4&n6IqCpq7IcTaY(e|IPb!{9LB2_J40{4Pu)09_5Y(+e`~&bP4=7SD_rTznsi`bF31EJ8}cUM9-~=^6`"
    "It%8ah;-9?8?5d%<ekA83>1I3OHp=geszdb1ZVL-gmV2N?*aMrAa~gURz@a#18gvNOf|a{<*KPy1=*k6N!kQ9S?nk+Tb|#Knz^>gS)syNEvr3mA%"
    ">r~J457H@X3VnS7iT@8Ng@v??!D-T}ah}4Q2^Z~+}UrI{?1uMvS25eT9zwJ5i6VhL6j7_zs1CuUNeGw7;E*V=N6Xl6{hSZ@PmxjYx8700q>cGvp@"
    "T+(P4wG|4QF-%zl2BNYU)P?bRb&OLg-)eWcPGr48WI--^&!>UY|8sqvm{8To3g%ck@rL%@OHKr#B7rsNmEl90qR`Shi8$UwvTB{4NgAneh=88SG9"
    ")Swtw92^SD*=$(?os9;NKbVj~Qcvd9DIvVCxJKkdim79VtQ0k?sRUc{~(XR5R}goInH1z9KSap}0~5zV%Q!6{8}1C={yZsKWqxGcYb`-xz_tFsCz"
    "{tb-{D#nf(6tHq<Pkfz4!;q7if16e3CJ!FsQd0|V9i7OU-Y)YU4=sf_K6O74CvA#2dbxkQlZfo<$I34_LWnHzhtdf!$56=xb4q~`&qpdESNuv+Uf"
    "sX*f>PtI^;cT{MJ3giv?Zx_8AAVkqVa?(w9cHCn-~7zA+h>>yzZWkZ=2Qq_g~!q5XY4YZ?PKd-+`69xp}={UEh<n#4~pB$&r2(Of6K>exkF`oNPV"
    "$h%#}x7_=nYc;cKe&WnkG1h0m!x@QRc+b42(ejXyM0-ce1{VD~oDZQJ6Ng}=)Lp#%=xvmztW{1=0x$bbh;Cf;YHB*^WG~YXx>_JQ4rNgGm*hM8fM"
    "BjiL0ZQP~A3W|TT|KqvXm>qaPA9OkH$+yIEH!2W4r_z{t!=h+n)qnZ7`5ignqz8hA#btJSBm};VQ#wgFMxR(gEq_a;opbD%s%dQIbYN2-OI}tjMg"
    "*XURn}x#L_OH;w*e3`kLzQB!Y~}$nzNwrCwl<bZ|<I#=fprJ@|TY!=sG1o&%U){And)Q#0?apL}^6@S0kc3Fz9%$>@~Y*@sGyLN<ze7<oP<<%C!<"
    "&a=jCuVY@L^r5{e-#j1$5rdG4sx0I4t0a}G`Be03p})NX7D9HBOQrCIKFz1V;2dY;UeSP+5@S@NJ+zc|4jEwOp=s-ft0hGZ87+o(h)l%8F?@4`z8"
    "bhZ4@=fbku~~m-42!dg-uvo-^885U4r-jX!~9SEY^Ge;E3cO9Y6ci^Vu&D`1Yr#KdS^o|LL{P@uz=tmsQkt%s63(<WI^Q&iwIe&Yx7iO+iozZ~IV"
    "{2u4E7w?FyDC3-!a3NH2<f%lNK|0m<eb`C^Zkd*{=?_U1eG&yJ@1QwP*6kPX51?Eq-;R6&J$g`tRS+(rj;C_KtKu)F#r%zD$a@bG~CFIY+do3iDL"
    "?bdo6VHVU=m7qo<ME(i_df^UV*lep<w2ndiK8Is=>9-{J(SLpd?eyoS)X8lRDag)7sDWnqJ2<2BxW9v@xf~}Z5l$rfk>dx`;aoaSdGIWyl;qc|N2"
    "h1{$?t!0)6A07ZjVSfS7emS70!2rdTJ|PWFAL&y9QL0bmQM_>DvRP<VVdKqYcxct7cE0VvF1Fj_VcL$R#?#<|^ZT`nOhl~nGq`C{ryHQzpHWPqf;"
    "`+e83$zL1{af>x=01Sv1CqN&TZANRQl0+2Nj-OR>m|Grvul%$Xhh<HDn}QuqQ(x4{G|m2nYu=%}bxs$E_ohz7whf$lU(zz8LVO>ieTmJC@#AeIN-"
    "ysu6j=CjK293v9a|T5j_!mINvF4@W<-6~<L$E_@Bqa&l;z9JyqbI7$e#6lMo0*lakj)11V^F$c@>0%<<_%{ntR_g5unkQSxa%afH%wnR3dqe1EJ-"
    "+0U6a9lSD%dVtpJ~Hwi#3jOwf@LOeG7D#O_-O*cHcI%Ca#MLO6-qPxCJ>{`0478u9P#mw%eh+yx^Z-RDlm^XOdGY+OE716n`skD0o<Pa&d!RL+y`"
    "BY;PcKH-@B&2%jnRmPAUQQ&@h19AWK<e-oN?9{M$k>&$=2;^?kX7789>yGp_FX2!>~D3?IKU~Dg_4Nj8EqC2n`32kj@9FHxG-X%QA2$~7QlnYB?O"
    "r1FI}k$KrI|@nfrHV^J$OETW4Jj`1P6@&!|ArQA~)8IGFYC57t_?{>$G)GlJ8^B9-(od*%e^MoSt#gR;ojfA<55b<!x%DNf+des*-`nNU;jRAzL9"
    "25@{G^qY#NQa~)CMiV{#rk$0Fba(;=)csy*gTZaGv02Sh#S83KH>YKlDl0`k)FicQ!ii_?kdVj<0_G)UOM9A(EZzyb%ckOX&z$aicSg^c_b;SGy6"
    "-xQ!Hx8e;&_A6ePC_2`)QTfZlCe?``DL2bfWgkX!Uj7hUHTDl^V|Fw9l1;*ux(_U*~rI+!)+xoYO>6hECOO&Ugl0s-nD(RP<rqFnKiB$NqEzkF}p"
    "QCq{i$@=~ML?tIyotP9W*!*f13y-E)9i03NdZZjn-J88V4P%Cq(*1S5YqSQsO`?H6iESWmk1}fJtbswOiQKYJ<3XCVhp)=K&*Cc(6Bj!mfU03`eL"
    "cN--lcHKK*&b}Vz%g)ju)C>yd@DVV_BnDrd<;Hx8eGcg3c19=j{!=6>VO|SAp|u2{#^AeUz0Vwe1{A&@-7Fu$=ZmUJDFH&p+@z%-*q$&K!pgG8E0"
    "K)1W|~1o`i>|1^tGsn2;|xw?|B>Fr#lYu2Pd}{;dtc`nM-Ln;BE*iHG9=SJ%S0gOv7@)Hn9m=V`fRs7Yr*feMCgvkr<V^OiQjA+~a1Q-Xbs*3tE1"
    "L&ABtthg>b*Ts;nd%*Aty=Gs&v}X<VfKNPbCBnRl=NM*Q(DI}C^Q7L<AF!JFe$}j~!V?_XapLE3#i)QeIyL2oV|o&2euOG1OA8C0`ed#*J83+t8<"
    "9K(l1}hE;IC<i&J(dUBq{+o^C6@q-iQsPuw!~3kdbploBNzPjU$~|v%7SL2b1wam(-Oiobmw1Y-yeQRZl(<6$+0Z4>cTFT^P^EihiWZ6aY!(0AAc"
    "Qrp$v5UJ0-sWv%t-!PT#Lca>DW`EGRp_=W<SHE_+Gpn=HtgNIr4X2359cPK*{GOKWe5qDT8g=I{81C$&$@rXQ)02k{q*eC3)V40Gfuw5p2tPLpp!"
    "C(p8i!fNMOP;91WqfA~AMlg6IOZJ|*{Wxj8mJ*~1B_aooRtom5#vs<Q*<dbudXtcGy4`2Ijbz9I_o<7R2{Db^@B2st~FxSQ_3h5U6GU`Vn||<0ix"
    "=e#oNs&QTZ6DF!V#obyP4fwOmH|E*4xVt=TQ{Oc2gPQ@LRVz7tZ+8321}qr8F+5Vyd9{U!n+hsQ>}i8HkD&K9Ac(HGR60${}GQ26zj?*}6E#?aCO"
    "H>fKN!ly6l!a+SI7;T3urokKDepoV1RcCh$etd1lyJ+*_^9DRkHy@JAI%}ZKaW+!;&|x7`Z8uWJDilB@$-!rvK;#=IQ#epQA3xZ(lw7X)vux(^2S"
    "?_q)-M}D_14vbJ|S13?w|SOc3he;rsR0?><d@;C~kAd+8W>afF4iIEImZK<}VyZM1^!}X`u(SoY0qeP)n$i;-o2tRK%RCESP@cCUB=mmH}`1hcwB"
    "A?JPjS)1OPvZSEzVh^8we!9BD9cyp1EufGJ4uWLN<LY#DDdFlV?fl~t+r2_K-F&ZK{{50Sf%`ug+PH*XLjxBpL1e}2Kb-tC~&vdso+r@_xZ=9>GU"
    "y>vW^_6EO(R|8GfkcLf0-9$k)bkU6^olNaT3LNn1ZdA#QTWoTf)mzN!SU-{Z|LS<Y;|0MPR#I?lXOxgA6MRkjt;O!VJIChxhHV@foo%krn{EI17;"
    "!I#Q@lR&#_^Z%V1uN!rD`nH6E&A;&Ja@gshk8^|(vA(-n_brd%014cq4@Y)niGYVLzVyWl}rivFXQHhW7>f~}%T6?xC5OoWLoz>;02KS$5+V@se%"
    "Bf8#CN;!M`#A_0+;S!9UYb(^wL-ZP=5d67U7#bAJCB{n)VDlkGraDstmIgx0Qwxv}pcA{}e~v`nlgdikLwtUN)Ta^y)Lj75JAUb|qFHunecT_+*p"
    "BK5v<`W9LiU>qVeNjG2Tbc?tLnmeV%KU-W|Bj%MYYPA>nag_8YsYQtlHcRy=_VZUF^(--HXQ_#e&EC=Z;sbf9b>s-8AU%nfzVbUkrl`mcdBAy>if"
    ")1-mLs?;q`=nFYMT+YfK>el+QJAbSQ6G_fCyRTp+AM$~BF>H!oOpat^P2d9`WJLJ?0n1dh#l}(`@y&nT`MbvSax_|rTOP)&_h8`+jjT#zYL;@m7o"
    "T-7(OC<<C<|Y(3qF0e!-j4oMflw|41Lgl(PnOkZxYjx644uo>Luoa?Vi-)UIxm!@hxdsH_S4O=IMG~mk$BWjt#FEpMiEjA7A@~H&mLVclfZ`Ad?9"
    "&(aO;J_tzGP<%d!>Ww9sItQn*6U2S$V7=;LS|8NUTm{DyFA_<U_{!C24Fl`OuY>Xf;?9#jxxo_-kFkv1$Zik=({(6%<Ap-0gm{eTLi1`(0|&Lm0E"
    "Jrs6R;>UF7n<w$&Bp;lV>IJk+Owx)Js$l=pH=3~-2r7-q%V5<jw*Uyt%F16P=6(?sP0q%2KB%&0lb0SBHKg8(ru~^mC#@iZiIRm^vOrM7BbRsj^Z"
    "3^n-*M_%Q!M_Lf>r_LSfJ3%%XTOZVo_ayHr({PK)1kKb0<UuFvhbP{D1#H|MS09NB?g_|Er<@{oexouK@qs!T)hf|Busic^uqmt*8pEF&fMRE$ZB"
    "eKBU%3t?~d53vZh{p#(_-qpVp=5R(q)nxCWOYdK0p57sr@ka9~}tPg;o{%6<!Ye6oIKD{uc38w+ALILoBY#`1VK{4+)`lb|kK^_MI@>pXTNd%F{a"
    "LJTT!<{6K1(5rLRCndu>|5bPsMVtSs`;CWb+q4dW~0(omS!Gq&GXz_HHx&8E}ym!W@qjYOOp#b3tRb#Qw^x9x9k#4v5svgU<bk7Jih&<_r9q1G{6"
    "Qdp8UeXzu#~HiwDgdd9nS)(6?!k7v7;c7z25H)U`qCxn{qFyAOjMQ@2eH1V0VL<iOaUX`JYc$zv)c6@2+V(K6XMo~-f<cT5G)w@($4n<i=yeiXra"
    "xzsZL=9L%~0)$C3Pt+5Z<XK)vK6D14K5Qc6hcXOFY8o|Nh|hvMSCaWc$OfYR$3ZL8aSLsR5l~(D#EVIbc4PT0@0`xo*ZC$tXz}gZ_I@t_&us*tUp"
    "roDak>VeWpC}O1nHjZKEC+!pBl2Fm>i1e{`b{Cq5p#)ef`mZDc`WhAfm@omOOG{o|OLQQOn^0TEh~2GziY4*>+fk)>wKEE}iJK5`iJhN#xOaxAV$"
    "W=M*kL5uh8t<hSGp>L66uN5i5!@ubvBD#jW29lwLp1S_fwrt5g@-m3MMH(-{49M2yKRi~(KIOIPdv8{#TGxZ7%Og&Kcoxy{W_0CwY)3?)I)ker2>"
    "UfNSJj^_D0k~zxTA+)Yz@bqCO($fyeBhoG`sj?=|3E_c!so@Qa+OpFZ2^Jjj+TfQZQ^qvCsE->Mh<7}1G@9thO_&XJzsMX>*CkRwCpc>28xI)a0~"
    "C@nmXMe%FMv(F<MpTaS8E}928Lq1n6!$RM7a?`3{W}!4Y=Rbv$p$JNiPXFrd&nk$A+$xqR<7>p^DcpGsGWHpd&>cM<e0lTXf!eR(8^^eKYOkbrXf"
    "awm)-j=eo2Zb<!acbzFFE&!}5r6li&R5lNlShf*R@q(8$q=PmaDyMdWFn-aOxGA}Kw!9{+$Q|QkL&9TlsnkVy)#H?gzl*lYmt*8K@Eoci7Nh@<u6"
    "NsZ6jr*%a?N|>()scyPlOG&>BVUyu$TMkQ}a;5y_1Y#t7ZvF2qAPVRUP9#xEBVz{?kF*Pg^!coGeEPkL{;-py~f3VhY>-%Q+pcd>CACl(TX*09zP"
    "A-%zW5TmZ%KVyHy%{v(ea>#ZGH3nXC*QeGbP2gwxnmh42C(b69iu3~5&PkN*7kV&#HAc(`ac<l0mP&jQT7&CK{6rVmZWQ}3YCpyx&{Gry9NeAtbN"
    "g>XtDn#^;CV`)n&?5Q|mJdHsBcl6@|1d(8iz-rZQ8DKjZLKuUKDR42?4$it(=UMfY{bx95)p|9F^GCAG$KB9weDzK0O8?-0cHBa`-#88jDoyVq!M"
    "NHXiH*U#0NOHn3m4%r?fOlkKMlubvz1kSr+D{D6Felz(<$<bF|%dtn3=;!GSK&RUzUnk!&JGNjf<Cw7Hihx&S<aOGA5!6Y-(?+fRdUsPTt1TTurn"
    "swn787uZs@37F`^=ZpeD#3HE@dF1K6fQybuRn(oZROo2Jc&{fu11;MZgtzsnCSd#c&75JBzA$~+=+4pNU~D({%cX0#H%G2yk%JA1Z7-E4DVvG8-}"
    "MmKW8|VpK<I#pM(JIW0XViLH|ofgoW%yWZzpAy1B}6N5z=GB05V<S$n&Tiyde)nN|iwXUV{UUXGH$r7)xyxFrIi-9exs#<+@%5M$#07n9G5#`1**"
    "j$-ra^hlBwkgt?QjnZg`H<VQn1AbiIFR9lH1C+;)MQWGhHC^1L7jmK5U9$fXBwHb5yU;n4=CeVY8`n+7EArz=g+8YFnvW!7*Ae{6L60bIhMK}U1+"
    "=`enC<u2zN?1yvOP_*ZR&#M$EJ#s0-la;_ov;Y^eNuQJ00g+^mTPC<OfgrU0z7-JRc7&XOnbj%>g*{g4KN+2EqMSGKJLH>(^Qr?ejNd*#aj7DU9Z"
    "5ybt3)Kt`ON$4k9~IiTgvBxO1o*ug4XNUS?X~y`jhEz)L)p%vbi{dJl1-Ms6Uk`{`o{F4esQzZRG8e0e`9Ngt5n`k=Dw1sHL;5(M~fxq)RayQAjH"
    "@bXZzuxNiT2F}-A0ZxnWVCtt9_}54M1LGVI+k<6>Xh_T}`CQiL=8U0~H0xGkXQ`cqw)J`Xo{SDo`{sqSJpf2^28AfKl#R?#EwEh`?lovPEFcT2;g"
    "Sy&O3m2TpYuTO46T5d!qFELbkga#-w%YR!6Cdy^z8GpyTEp?TY|cZ@3n$sIUaHrjf5@2ed<B5-ImcfZxbz|8KzFU#5mYpu^dKM7mXz<Qp)dWyXzE"
    "nUS6zF5cNVs1i*Uq@{Q3_&Nt3G!E`-04uyS88Tb^`1NVJz8Jfo`1^MF!0mO^6**reg<K4F_iwFE5vhc*`d~o$m<Z|0ma8w>ALflDmVg&j)fOO-nD"
    "D0-4I0IbSH>p2K#NfM}sK+CL#<+o^c+lGoKTET;=>3)}PX~)c$^uBRB36pZWfXjF6{RQWXbB!8B{kNwI>u2^EBXjJP7Do4`B)VZ;ENBoT+0n-#Y`"
    "Ct2(1SY#$cvh0>+9yj*BLS&J=L^DFVQjF=|v4JrLJt1TumA(v6ke&P6MLJXgA0xzjGfL~@s12zT-$-flW%l>muXh$l9~pvOv01VX!`89D&IF#-qU"
    "A{o#ock}g4=YRxj7$kyCD!SD`!gAZ8{e0;<{0p6nrIwctul9b2-p!as0Id)k4nQ;22{r@X>aImD(_+Blyz8`O(5KUjkNeUd`{EPS_9?JKn+(peE|"
    "fNt2XBT2RFT~`EvugNzF)jz7O;=r(0aPWWmCHhG_EAE6)-Y-22@qKfmw%D8okL-X|+%u<pY<)t}k53yz$M#E?ngKr;QXxSQwyLUgU_1z!xoCFY(c"
    "64F=0Z5giMv2WecKX3TC$i_Rx=w1L#;3vG!nK2Q@qE6=tpu+vJ_F#6=dVwoqtM80+KF~OGj96He(jSqM;93GI4!4kSKjJyy+XSV>3r~qILLK;&E="
    "r{n5>}1@O+y|x(bAsX5>9KEQFW%4giX8F@`h29Ac(0IXz{U+YNPCmQT-K6fNN&!c%U2{>e^_RHJ~$4#U}1V$FDU!9hY7h&z~Tgplx(MQannM87ZZ"
    "eS??TPni%(aZb_w!|zxNX>328z~fWU4%K$+FmhVK)|3l`C|gm7{nVti~Qx>S@Jb!p*>vW9s(-9m!p>IA#Il-<n^GONeit`dq}D9&L;aFk=ZSQE+O"
    "6%0}Z?I;N#Jq~P&(ms5E^uhmux&znCzr6d&mgJba&{k2ss(U_KhPU)b0LYn$Fj)bXn(<g6AJnL;Q0Wd;XPq!^!YxVKeKG!R77EXDvdon|$}3lNiJ"
    ">@lgH8`y73DoRRg<y0<zVR?)S5sECpbNilrE5kTcj{%(aH}9lQ?!se#eKJj7(z(gKgU&ZW#hZig@eC&Q*F)yqaT|bQ8cLSMhthZkLapmSRO6;cji"
    "T0sY|x(2TAkM!}&V(YJ|1kI*a&+V3V})yWE^kE3Y3rOW3iEEw4_7f3G+?Z2QyoI`$a$8O^n3ug2xHyttn81#mA9F!^o;-&Wk=x5lJ@v<)1rUA-9F"
    "7YPwtbyNH$EW~)SaMokIz|v9U{tjiXN}Nm=X(93QsrK)S28r%+smWH^0&S*a9tkDT=KXC0s0QnMf$V;;dJ9Gjj9r<>Hxuj1s^7uTP6eTO_aYS0}}"
    "(jk8nA0jmnw_5Ot$-=#GsU0BpmYNb$Qv7o{L73#0#C7oLz2v*$P@I9gs1kRUiQ^o<x~8aRSSy7(HzlPho_DySCtWMbae60{`M$(*68SQS_(PJLFi"
    "XDBf>%p>Lh$YKJ*gG=~qK>I#v#;1i*0`{^1s;@+U`wEoBg3T_1UA-1zugXdM8PC8+jKH_y`Y*fI{CVGs+VkXckCNz#<y`62^DEbU$7rs=i65@^@4"
    "jaL4K@0{Oq|c0jPFg>u{XD;@4lhARjeU5+N`F_9lNvhrm|>hh2}8htw!dJ%=~^Hco;5)H!EZu)WE=%DXoeM;13;c7p>Y_O5v@Qhg4U5l;om;fy2S"
    "l>IegZN7uF50-k9+A`n+IR?ah4Ndo`q`MKyWx9?0h1(LWFw3&tzwTeSRBHmEU<by&hCa&RN2)x2*3N{#z3ApDK8BSlh#m*(gtDYE%Z%%rP8h$8s9"
    ";yT3j6*)-*pC%pC_?<fBvwcniCM=ov<c+1J~x~Y1T5AZ47?vaY_RjnO&N{m1f{rH{pm{i(^aCSs|7PnF~j-kD~FQ-E6?(VJJP@?z|iKVZg7wu(#^"
    "F7Nx&<+{jK4P2wOmWJr$ReQLazb`6uHnCa32KZtN?_bhu4)Lf_bA?se^Rfdbivh7(rFbtaVu?~WC;2V)p<mAY~cDWV)|7H#SaFC~q^s(jwC>$2kT"
    "1l?ZlNP?yTlx15OfdMcpxcsBkO@4eX$(*mW5u1t<R>+FN>64S_7!bqCMnLNCHKoVq#kqufG_BzWEldRWQW&Y_Sz8}$2*7&D$9^g9=hBv#rCc5h7="
    "Ig|8|;rD!ly(38kGIc>NCGVVaysdnCKLGSgmA&WER*`is>^sHV^<RLCntKIP?z_;2Kg;s&X~;5eX>>;};JxhXJp-?@)bv?ZO7=kz`LD2CJ;(5+Gz"
    "u1*zK@$<FvQrZjW`NPsc59%FhXv#yC)X?kpsVkX{jg4L0HFfl~4BHiJxwqkI5CcDtsn<zZjW@WavJe&@w87&ZZZ&&D^V%;?85-E$@O=*+z^QiDb%"
    "Y0uRMR=7$mc)Ff4cfbAdO~kxQeV7F^{B?4x4y~2>9;+RFI<{)$eL(7QN8RZ0HohAiY(pb)pBq9VIH4`f!ZiC3cWrlezrn)3LN_46oZ~!NO7iKZ*!"
    "yMk_*97OclQDyPFi#T~9N4=CHyFji;BwM`n#U1O4Y13U?Erj4&!~`WGGocF9rQo~hDHJ-;VZ+S0iPpe&a~l~_Q>^-nIv?W&IjoxXS~Sgd@SWULv}"
    "cJ$DfFYXLKCe(uZi8J`zk0+|zN%B#cgZ-^RmnaMAX!C`5`4VWzcMF5Ho_McVT+L{&8jIu13Ygupz$sc&SgD+iT8i}Pqfw?sA8qWgkoO_)v2QZldQ"
    "%ewMOYNfFf%rF-wH|=f<al`A*31kf(fyhb@2UBZ2;Yi8r3IfaU?hqPJnRGqM>%GLOg{TWbZkQSZv4QH1JXuER-@va(|hWImG7pP2#~p_T}<lHV5Q"
    "+nz)h&1cy<XfH^w)g8%sQ8?PKb-Y>=vkRHa4@LI-r(TJd76G>-^FrVUQ`$(qbMD^qhvqDdNREZ+;0IQ5Ej$gxp)!bF8a!44$!(NIB(d|Tda>55gP"
    "zb)T-4vYv$44VeC|-es&WXBL!o>g$E~7!tW`!bCI2RpDB4(xGaqDp1dh^iSu=2j~!nl55q<a(M>e@GT{daYYRbirY8cpDfWOru5hgw#C)MLvt!aN"
    "FeT|_mzCKO@t5r^<PQF{zz(JR7*uIHb;GT%m;$`CVtM5DUhPgD}Vn1R`D5!p#*-Lk5QCr&@#tW2%QFvHXrF-KOTA8l99Wxzxt?m@4^oq`cFDo1yL"
    "SQZFJG1h>xrtT8}o`zhxGz7bYmutJFL2&S$+}^Z$E3{p<LsB!cTCoVJm&T0=pxkJ+ZFo_pfdXX?10nl3k+7jy2B*M@>N+l-*0FYu3*Ymieh%xTaE"
    "y5cNgWT}%chS5OmwcvO?+3R3OKEBx$6R&(Wqj8)E=n%<FR}4mgsBiVx6N|T_EnhF0HHW;_r5W0=IDE-n2&Cq)}p1yvoHwUIdz!O8eQm(D(@mnm&?"
    "?zG7lW3WOaFER)5fKw6cOsvN1<XTo~5RG~-TYqh{^Pvw_W?#d}?a=AAo_Q~BA1;zU3BGjAA%Kn%$%0w4#x7_;Ehfhw-#<Id1T~i2QdNR3Do}+vuR"
    "u6RObb_F>J5tT9<U<z5{<wDt1o8KeI;Y?Y&H)mmLZ~<yWf?E^gId@~Me$XWZeXzM1j+|m@xMXbXocyia1Pr=ONaq|h24pDhdj7yq}BwOV*;%8(>w"
    "_6fLu9Pr%|!abeG3HN^LojJoUOaXyV%|C`O;8d}&0z5=98rLiTgo7O4hC5-0%Sc^xgL0SgCn-I7!>a^Lub3NTbfGbi^kR$BYzIy?k!F*BXHRzPk$"
    "{<hsBrmQ2M7V;b<sxQS=r0gq490r;f2lGZ32?>wIgc;Gemqd3nVum6CY!U<M1s=2A<d6h+;a6@)&>RaN3W@}%AhD^+fe2*hWR)@Kb@^>hqb(I(tP"
    "!z#ATxQ=+u*#;SB1njo;VljOzrK^7zM!9T3sSm!>#?g6T6<RzqByUtpWrG^(h4F%5@|5(&j1N42EwIG|CrCVF9&s0@RN=&kN=OkvW2`eYO+f4CT2"
    "ji(W<#1wJ(sTi;?|Oz^hQqO}-xwOgN-AWx{$>7l|+!XIQ*i-06Y2S{rWMDO_c8L-tDFK*Tzne`jY8ks6zH(EFnP+|8{nn|!q(ddb5kl<>l(kJCxp"
    "oJ3MuNEK=)>lv}V)%}dufA@qAj7TA0;FXSQ+3e7PJg&%-g0N;gqhYZKzTsT6j4hsPh#~n=3VZsyzVN()FOStQgOa^Ymu%f*E+;Ib9cYe2Q@tfpz6"
    ";4MBND)5bBG##~RqDoq^7Swcv){-hLI6KcE1|l$0J{f+)!ix~DNiaqZP%)>dh+t)I>-t^|In^|<!s=AzqrPv*ho{(|9}saA$5l`P!iG)lF5_042h"
    "zw^@POO%{Yg07;iBy>j0;LolMuJ-k7QYWzGOb+1K((CXe7a!eTxn1?h52YLvCF=woDaLg535*#SGOsH&h^cO2K*O$R(?oddU(z6A<omtaF-wV%nS"
    "OoI{3u?vfL^&qF34Lz8MmnO{<7>IH@#p;_ACN;K%bu$2g%-t-}71-TUmr7`#=8%?MQw^+3L8+d8RnXBmsCJ%Y*>Br``rVD-2Do{JxA7L%1Xy`xEh"
    "gwKP1w-E{KQl=0Zyggcn1e;4FEO7>2JR$(?C-AQ^mca_oygE)1f_9)WtW_HXAc_=P9W$-mX%8>{G7yPLKswEmWb{-29JJRRsCnWd?I9Z;G28pqD("
    "#t*Cx5_|wRx%74@9W_DpkZ%c=8g13dgBReK!Z|g#?Y?9*D8r1OJ+G+`{fo>+o=M_26QBPbb0%(etwH?t$o@xRkMFhi7b0>dO5WPo?Eyvh+b5#oef"
    "G<_#F_;xjtt}V%_4NgU2uV;%}9>-~Q!``v-qrQt=3>hml?=QOwmTxLoH)$x#uDxq@MUO6NZ0C$Zc$8Vqn`j;#qI`(~^;O-ZMWN2Wgm<a>E+^%Xz1"
    "vlL_-CxOa~(9wjy!e(KJ(JLUP@1Gn25%ENLVx{+|j?k7W32RIM6^UDpU@E5wG$w1Rn@HOkj0)zMz)0Vkds@;ifx~Bwm=<RkU`tR8&OpwCklwVgg0"
    "8!X6I*N4)tQ+kUQ|(cLN832b;RW^mlsw#7@Kyi|7$;*s4W%Rgp%mKZ0&G9A|{~vNY-bs+gaMJB71K6u!eftWZ1fXalVUqXJ#oC_-W4R-zNQWq<Im"
    "BAT@jv)@Nm?T**Dgthn5N=qqwc!e1ejk|EQOF`xCz)I;JUum9wA4K0ZB27oHYY89ukor9!`w4asUMi4X;I=TIeD-|n4ySka6gVXm!R8RmDG~Mj5t"
    "Cyi9G{%A~lgM^;3-wa<eyPJJ?GkJi)G!9Fyad%NQxx>w{nW3VU>If4DuZ1)B}b)=&ie9GX=mV6-|oA9H4<2$Er{>q&}6B6ARMskkS)38B0cct@;K"
    "Q)9CB0nvj4-Blgm(Ch2=q%%M~WDZdSW(zX-wUf;d=)OdP$MR_4T>y4UTIgAs8$1SiI=ATe_&ghv<R2*vQs%joM^k`&Egg%eLB+yzV62UmY-AA3Dw"
    "`r}z9Ok=~*rof>_2joMd+l?c4dqf#&(vhk_D;@MSvUjl3&H?PRIzwr;SV(<wg$jwv5tDtIJ6>TEVTFPfsRc{*)m=r~iO$PJJsn<G@oln;J65cWY+"
    "lO(aMTjR#W}TSfj@eaPLxj=a~dkFS`R;5J{m4EMK6yYfB&M>Ch1J$@`o+KlNzM{bF}zFXn|*2sU&4=@|<f#3plXD6W}a`i;br;2D1u0YEM&$tCU)"
    "rw5Lw+0PsMOK)pzd-4H9^?6WB_#LRKNFeT1S#|*``D?n63xWnb&b`XbE@KBhqMJ-RjF-<bez2R1&@-K`#U^A>r^O5ZpQx+shhhDVs{AIvi#RrW<F"
    "m3lkM(-#_ocKqnOpQjLbe%lM4kU#HF(5N46XaWay$<2th|y}o&Tzavk+|okJ*W+z)n+-hpz%O^so)}2ZVe11ZI`sqvf=RKD8k$T-RyI7>Ya9X0hV"
    "0U9+{i)s3zno@VT{*Yl~##>)NDyal;B39Nt`g0;sQXhrZz=<VK-5E(yZthqv(4j69?-T1Y>-fEFO!@`ND?+!X0Zpa-gp8tE^h+llCcV$VNclox(R"
    "1^A&`mMO@p7K|T7aD1L{V}`u-f-EPB^*1<Fez`*Y6o?l#l}}V#>QbpnOjFYe?Foxp?(yO&R4G9UxGUE>D?%Q=cBaKBs2(P~n|gjBL0?hMNl!knIT"
    "3viM7$TBohiIp72~T_IlkyAs7Nn2!CU*r|B|`@5#;Y8X`U7MZ(Iqt!P@McgV|hu{esLY)=ni)i==yLR)Itc*FO1$YZbJJDp>1;ETdb$=mf<`dOC="
    "s+r&I7Q)H#JeFo4$;X15lkg85->r#Mb?lcz*_a1d*0vIp7#2bk*B@xmZE}(R$8nN#p=4P!?5nw|q^b!5rC+!kA#9u%8SoK<inRJz-*$pNjHk)_=U"
    "8Uh5;8wqssG)92EBqMd_2Qz?hDv(oQ(g7!SBk6#wWSgxW=rVcWzJho`-&U`Dz51VQTC*HZ5VgbAKorHNqhtZj1x^+>Xtki#jPB3bCbDDfkKL9@hs"
    "!uxI&vKlPI`5*WT+oJHW8Ye|Ty8Ot??lCD`&(Mx1vOmUqgh899Mcnp3|RSL}O}B04x3A$x8M8+t=krQ5LEZ?EM*_)=0oY9u5Rl>sClrMmGYES1a`"
    ">Q2bymht?;Pezv}s$i_BX6K9j3fO-Ib<v4Yn3z~NdouBQre?FGj=yy=6u0=Ld6=R4VslrzZtNIr6%-@42si2CAy`cu?WhSKt3P-i;7_VxP+8(|gl"
    "g7<IoSS@Iwa7RDB}do#DSTW>@tY>;`7WYU?KV3##&cDw=w+`4PeVlx>FS0xGde}hEW*UyT&Ymp6#HA>H2<hO#!su9RfN4r5b%tP9bRO-FJbKwBdU"
    "EzgR_rQhQ(7^j&DJkTe4wwVHkPFumjT(!&{mCJ?hb>wB7EWFyx9w$q@j-C5q)9O{!611cHSju2m%fUj;D+YQHErD?P7C+bdkUU!tt!Z3U7M|ev*^"
    "wq0^56uRUaVpdqW2*GVTG;oqcnFKYZ=;<|iZLq=C5M7)AQ!aHa=UNCBhN}gA;m)_1uBnBqPFk%L!a&a*sits??+K7s&?L~P>eLM@4X59AIit0bs?"
    "qDkx(Ipj#$vGGwBm#$gLYyi5|2v7ZiIJBD1Nym)V4we7Jf&2J2Q%=!C77QK&XXWbiRQU>a7WnC|{+h?U@0+YcI>Od2f|dgWx<ZE)z+SI|{dnt#Ss"
    "k1G3N%;C^eYv`HHCkL|q(;AP2{1)PiHJETlu|H9FLbpa=Tp_CkKch^hF8OW!ASc?^RYzODxeOwC>_ko_GsOqvnH$IUN%IObYgIck@IRU(zdSP0YA"
    "qH_Zo~z)%7ls#;7@*Kf9gl}r+#C$Pl-+8NJepCD{wqPmq>B*9o9EkhcAAS*tGg)GB8IDV=9qKsH?wn&y;?7+n{-m4+BaR&mesqq<{E<v3==}D4}j"
    "Bi>TQ3&Mg{YKI}MnfH`vTtH~e8U8IQUDTZEsCRAN1$3uRAqj!#gU~rx_H=)y%pRB<c_#vtRn849zxIzf-CsIb?OloyNG$NR?{h4a}1JeWc+I~#@)"
    "P^6!8VVVpqHO~PkSgH>yfSdWR2$`~=3-ETI?c*A_9jepGoD)|?M*sSWf^*-;Nj%v&TU$n+XKpv6#B?G_zj>yr@ArP&T7(v7O8wwztai7ynTn<)Bt"
    ">C-JEqEaMNcyYw!wENPS7gli#J9n;FSvGE%`2bY-({Jpuu~j<Ww3TTcEvsBYoYgB7K(M?nCmm%0+5Li&;GrfBV3f9q@SauML0TkF^mi1G8Wahm1u"
    "wj;TH;c`V^6*O(VY#f-n60W0%ZB^RY*!RIIa?-s&k)jNh@~)7Y1z}!ueN@oNp?P0CR9VrN_y~SIGJT?a4gboCeDkmVi&svBeKRo`rqmF{#j&|bq3"
    "{4H1ZxG*#8;H*)h*-=)3LEq-r^X2hq|nMVg)!K>G*ma4`H|<c_Q5sD~o;7E<yI8WD+RC*E!^BQmg-hUGtBnEih_E%I#3N!~VUBLPrXC_}1nIT}OP"
    "@pliO49h|Tbb7r8!_n?#Bw1B*v)VxC)QD{0n6=tj7zlDG-_@f1q@;vT$KNz7WVy9}a#P&Vxb<RC1E@oT=f#fp|o-CEYKAiXGsTm<<VHtCBlCTKB^"
    "15m*fN#TPL=p$duca(eeR`KnVlP2yN7D4{Qq8KI*BpK1uH{&RD2ZWLINGArgFrGlX<w1^16T}7UqSU6uEW@WGr4wk8a_|Vk0^>y&z|G502qnwUy#"
    "wWK<e%(u*Vs&8eiWe)Ga6N3^J}KD+0c{)s9+Ncix8E2{PnxtGU>QTfN~n)aj)eKN=KJ9os*+`(m=1>H&|dmN&~WCUG$wqjTT`fkKKj`AW=ST|Y6e"
    "ulYR6ZSdH4$I?6dMw}z_Ck9V`wF1RRv3Hf$o@GVg!1EbIk;Wl!GiKi}s8SMMINRAZ0o!e5V}nW8`6sCpc54U9`m<;IM%!Q_3c>BRpy#s5j+KpP1^"
    "KMo(&oFtf;&_mVfbFMy|G3E0i|@zU+eDV@BpuN@<i;_vnc^#%vbHaU%kd8uXBX{>d(p6tLH8S=+R$N8rr-9<nj#lXNZ<eQ!_2nE<s+&gtn5m<rfB"
    "`z=KC&01iArf2ua1L>zU<;RFy<@!I7p7c5`rDzkUn0a%4W6xi)x>u&$#KjQdKUbQ`Z=^k&@lXp(k-=33We_H|H8xEz$y`QKCm^m2Wtvo;bb85EXi"
    "nSZmnLsbpBA_cDYq-LpmZYFvW1E8;&1iI{2-3;54U;d3_S9QjT;U(?ih!*#o-v{;yT*jl3qh!MJSHr-(_`6`GTH>Tp@XuZ`UD*Zux&suZEdOf7`%"
    "Nr;PBGMh2UXbl?hdaq5McdkZAW>XJ96>vojo|Wg0?@BVNkVc30THEQEF;_yNG<_}g;DAM(E>dbP`S+2KO%(H8MJYT(&;a&dLX2AeEvlI$jh6fW<="
    "d&11!M%DLDVjM3J767=m3avGJ5SUK%mgk}a*`(Y}F@Pvd#T>>%UTTA7ON3q^Y)v|`F{94iaCe1d9@qW?+qOjTEj>?#Y-SJy?K|#ck^0RWzbNPB;H"
    "#sSbh<2{{m{5*kp*;8R1)op<c<i>Xlx6WbbxRTRaAi~YixkqzH_$<r`NV>3UWL2){ZN`n4{w)k3*=aCkvWFopIX^d@F}q|3ljCHrlS+VjP*miJQi"
    "h2m6t5OLQ`ICFby0?3ktxTr4laWsHd{gvZP>cwm+Cm~|Ey0Bh%mY~uxmiFN9k35Qp>#EK(xo5UqZN>kdXW0;8<AQ!NTMiY<S2}^|;Vks@ula>~t&"
    "<ykfqi7UyvAN08-g`Qa11(fVy0X#TKNpP2HB`1o%9fTEcYHW+Ff7^b1nIGCCP?uI_Zpci9N%L6v1gfa9fra+^!oo}3wbJ)CXo6C;51VZaN$L)sfz"
    "G6uPngvwS+t2;-t6}+ZdMFz_<d87w|ya4oL|**OnCu@Ey%90McO6GtSSF%N0jL#>SIi2Maes5$)J8-22P5=K@7|3@%X^cZExH2>|8ZX3oqk6iNSL"
    "lNp>sxu?%ZPYnh0PX5?3Z<rN^yZ5~Cvb)hmK3|IadLglQ{C{bNiut->Tb^!ba?$&`Y1j~S?x2G}{Sa8jTKfm<$PJouNbDAp4_v7N2G9z0pqG`u;P"
    "^&VouvYK^>V>@mUzw)6Y1h4x@dXXh)a!MSV5NY_8dk?9GO+FfFzKT!9M(Us2fvdgTtw#2TSFK4_+p_!rkn4A{&Vk#tBHeNEe+0U0vJS>8ghzO3#("
    "<+gD(XRiyIDB#@&7l8;&ig1lsvlY%@gEhw*dw+*ZvI4hHx875`{Tf{yqqqG7s*0E}s0T|cVQ=RzB-|@iUw#T?)0bk%yaTy{~%nVeqZwIA2Oe0j_z"
    "P(7PVIb-&FB;Ppj$^}R^N}<D;=KTGJ%~h$oZ!-Se-00<(+@R=kjYWsAr#?Bvr^GoSMeCWV57Ffu|1lnHhbrIta9k9F4V|npBOJl5W)NtO8U;|v|@"
    "6yDRgEQB0$UmIDS(^$l49No}zo6`?LS9F|F{Jf#{)%oIBjbdV2scClu+Ds<js9C$O<gTBZ47tG?RO=UP-@Tf}1;)-D%>=d6QHbQEBs&r0UumqY5W"
    "P7DG)HZSN0Ja7k9!rpZ*=&|us3|f(X>=xXHJB#%^qkw{swK&E;^E}oS2^ce>#{HYmE2RfdQ<LdDu`+Y7^~CJV!Xv{|k>6J}-xlXhUFYR~iQ)L&N`"
    "=Yirj(dDn!tyOiR?~QhT?ciy~eBCXP@M?;*!_*mb&ePwXTj;u?w3y3E_(rQpM9im33yKAUD7O>8V4W!=+jXA(tw;$!us01AGOy$+czs9-RE+Uv(+"
    "}>wQ|Gb<PHCOtWF&5ylD-appFnDXw4?(Cbs0hXv#Gk>{brvacs%fRb-VuXNVi;2IMR0ehiKcr<Vk2<2rbxYOZeIzg96PeT*04ma2a=oi*a#34nVp"
    "zJH?Dq=vv8cuhphc1g(dG+Z>d&C~z0Fihes8j<!MjCfgk-9?hak&&~W$A7fsPL$rKgn|;(0DUYmUM11kHyzB@ulB2BoU>DA7YnQ!qR82vG1;^dko"
    "2;&1sf<fx$|l`|wa}2gX}iV&*ImFmA;GwO1=lEzyMgGwD||{&Hg4xg|={nT{U=g?K|L7*~q?!hi7}T)e;fPJScKv%OwPAY|GB#I%%dAz9ug3<Q0r"
    "G)XBp<}T)E5spiqvc?X|NaLtPv=j~-hWm$xH960hdy$>m##4V1hK0!Kq28R#eM!A(;`dF;RmgQB(x~x`FPkjBe0vqPYuO__-OoR{D@nrKY}zps+D"
    "ywXFfvGvL!S^DEzsS{kwZGpUJrBNJ-@gotpmeu!o8981iB7K6(gW8CBRkmpmWR?s7N}-p#A7n*(X1-3PYDMg8HIf7wnmkMT7a|2r5Rg5J%VHZg8q"
    "40dyjiP%mOw_1uGwBY6P)9JXC97^R}c4pN0&x(@eRn8&5h94yNPlb9zYiQ(>Y9cNLBE2PtSW1NR#jyO7oOM^VKFmLErw`|Z{VN3U7p<dUp+R_%QP"
    "wttP_lTer@X;HyDr=`gbWVEu)Eo6%(#x0mZhGC@(ODRMZ(d;PJ5~cs<xBT){S`<rhCH&IUZ(F$wJrzl#_c$uS`6>UurUYk^xzQpsWPNqiXcPJdcO"
    "^3XTQXaN~(fttps4!_wF4iAhNRxCTRMq>{yW0`+X<iko*~CF?gzyrw{=2AVVkJRte;VEDP-YS^=x6vBGiPt_<vX^J9QMYbhP3YrolpEuzv`E)N8&"
    ";WGnkWt`1wWxg-)wR$HF##0q?boV=qy+e#Ya7Mo>XlR3r<?9LNW*Vre!+U`tKvYdpS0ph^N9z(Kn<?5O03CP|^xU49lGcR0YEdboy`6hb!M+%VLQ"
    "dil)U)VaFg;rS6}hw(T>jSy|F0AN-zSvu-GABt`40R)Ux{2RIFrCx={=bq(%Us3Hb`a89cwadHpo0FpyGhc%MTqt81?JYDk1kixzULd#!aD)-UL^"
    "6I<7^~0LkLq4{v*v;rDX;jFM6TlcR%xvM&ZCjmtp$LPDbv0BV~IF3^TuEQd^O*>J@D^faGfioQh%>%WEt02<(e#MkpP;NM}P6%<!l!F~ol42}ZIR"
    "RHW~2bt(h^3wqufK~2?gaKzdGks?IFpNIZA9fl)1O21)3NnS0YUSs{^$L{M$Uzz0%byneH^c>GrK4^LS{vjlh!#atmqVdcV7Qo!Fx9^O`vK|InE;"
    "4q?>c&>GNOn^t)PyYe2xQgXROrKkc=poaiG!gpn6DB-XeR<kv--}dw}v-phPDK$2dWl6}J5xDur{gh!QYYii<R~k!&WHJ!&)!)@mL)$`~bR#vPgR"
    "TWt<ixv|&;cu_C|OnQc6a@KhcF&YE}g{iL#jbW=bB!6~3WT9V9$iiA;r1{#6R|koyGQ)7Wz!tnzeaj2`XL%h@O<H&dJO*4A^^~uD;$UjZ!PG=~3="
    "ply0qDZO9B}8U$TB;KuHkTP8u}|RFZ?uNAwV3e$ml?sqVSjyY4zZ(fRw@k9q46dy@nyua8^1h;~DmA>2gpoYaBbnCT~oK+8?=ie9<DHxIO)Oc#pB"
    "5XtB)8^~x4tMr{g5di{XV98M>aXXGv#pylF&A!R}S7BoSNN5$Iz0uhVzc^9wMe9Vsm8sZYLVF^^v6qluI;Xt8}$mP0h%k$GwyGntHq)sCcT1%3h3"
    "gFY%9vUzNP~{8o=3?G5;5O_)VJ*9_6oK%r!eLIo2mfD8Nsh@A>5&PSt)iT(E^Hv+Ufxt4PK^C?0^h4+$Rlre)LXs!#u76mob`HtxGb7QF468{o*9"
    "$_prBlh3d*%`&WSMh`&4g!RR-lmml&{3MM=G%SZHT<*cmQ_JUmK*&kU6w39ZjTnl+St=q_85BB}-n3l6(d#3$u?3Jo1xV%o@5F%(~5&AfQ4ujJ7u"
    "0+%Oc<RJq@=i-HH$^?-pp6lhYKi^ztK)xVbJRln8!7(CZ)kJ}PuCOjf8!@(_B0N$<x|l*jncDJwEV58{RFR%2JSMd7%T+oMQ7F_2AMSgW%S-%tSA"
    "Mk8!)vAp@Cl>}9b}VB<I?ZEMw=i?jNhDfASHXQ)cu#og+lbzyV`oHQHL`UrOOgqB($>q7wo?9R}AMh+W?_@eYaP}xMRFxa7H)}V<%ft-uCXGG(tw"
    "CcLgah9O5zJi2+$YMk_<*@p?IZ9*?WARG80@5``7N&X~*g1sSzx<pEJrO1tlpI#sS$gYXH^L#<pYOzrc9O5>qA0~w|<$g*k>vT6{rs`!QndWhAdG"
    "f*C?3N+JcnV-QEumIFn3qW`CY$wpLn<$};BU(}}4XwJ)V#AmU86Q=*x(b!nsHn0fM=F2zqHsCcbW09Wsz;fs-+Qqyk1<njj>S#NdlETmE_rfSF7V"
    "f+Wu-nC5PWzG4|o&oa$_9sfx_yEeah<w*wfe=ut#|7qKDfZc&~w3ttqJ>f?zzB4f1vw;IOR8>A~e6;$AMJ4zt$ZjO@3km+!lAQ<mhi!bI^M?OpJ^"
    "ifQ<Yb~BvZb($6}?W~gd0^O1-&12JL-Al8^{~Ya=6AUO)kXuMJOva89jNA5|u`XgvMq>Z>4@l4R?g0JY-qbf4WEen*X$(q3XBbMA_B2vF34Q7e8="
    "4|~i@W9sd)rY-V1PR%6hIw`pMpdtXfmNYh4AUoi73#+sXlz!)@@+ZMghl49Ri>A?g12N^=5Noz!Y%Xq?g?ipWs)yO2H%WT?gbypCp}J9OlZ#y7CU"
    "$T|Z4V?UmpHF`o+$anp;-F|x5OvJZL&2|VoRilmDOm>XZaUiIF(?m(s$@+$-mxVz-Gy#^Wc5|@huynJczzqKx;2P-78kI;#U3at~2uti$EXm6}W("
    "4h%o7=BtZTa}ECtFIza5k%8Op(k*M$!4lB6dVzy2L=#I^Ti9Fi<;z}>V84=tnuOBafF(PixmJOtho@dq?_R<xlE<+$M2mi^7j^UO<95e@nM~SPh4"
    "9v{FkXOddNJ~2}{M9;wsmnR%P0pD?ra&PR^xQ26pbh?ux&vg7hoJB~C=aiCn$|b=0k2Oqd2`BQf~=k;~f;`q(+yfh*6u>h0iF$$fZC_|8<T!=)k7"
    "Ek`mt*TMAay(D&`?u6%cry7`bVc-%}F%<b(NKoX%TGL$XsA3<~`hqGsNDI<9yWq2D8397GJ}p!w+hG%jII8J)qVOtjOxg(RmI%1(wy4Z1Rts3!A}"
    "04tPW*Mj&llXviE|=)qKk#g8RyP!e}^es5H@K`Hf5ZkMVoRN7ZzK#E=#`rh3&(VS&TmBHtN8nrQC~8)Nt}@e#+|~>LwxDz0<r?nHS~VA(Famu1*$"
    "<7f=8${EKe#aqeh^d$>g_GnJFo(A6Bj>x2&Ek?Rh1A#`Idw<*e7LCEMk2hoCeh24qufELaP+Up+u{J_$L0Si2#V~fe?;2iPb&^eKwq+fTec~ClI-"
    "&C=EmdGG|a7+V;tBRr&S2b1yF6uWvVBq5gn}Ke~DL=`)8}JU0FBXXoXj2+LzT~z^z{%KWeq=iJ6=H-4_j1bfq>)R3jJqnh`z1-)(rclOvHx0Uleb"
    "=apeGk-36-ORjg`(muvJf(m))t<qY@RC=IhJ^u@{z%N}{~XnxOkp!JCw#f>G@Yx|sMqADw$7=^7!WzeUIh9D<8~`yoc#J9}>L1V8~CYhMKrgBdyv"
    "*PxVyCHP@`@!?@qQ7%~TpK0h#BGuy>b1Enf3UrI1-rUEN;2Z%xmWei*@bu(jdcF(J)bYpJ*m3O+C6xz|4SDU)g7NQ%6OQ8wt-biz0^#%khm$&%B2"
    "r9uC75=g0@~0+|BbtEhEdmk!4S_tUQ2H;0L3BXRcV+$(e?!|qw{LMMv%f3Fp#yF_b-SyeaNbOUf|azS`0Y5Pt=|8yzZwCtON&*M~QP}D#+t!U)VV"
    "y_i}_mqo)eHFI-NXH?1e2g4y+o__}?an9+{yYSPXI^v|Oqf-DBu=Pt*MI)P13q=awM158jVWt&&w_(?|T->eI`BE^H@-!73;f5Q2ZcQgqwD_agp!"
    "ICg(0F5mUjcyJbs5jX1iW0rw(`UH(g(qZk56UYYmN67%Vnj+qkWZ7aBnCjfVK0lXnTE4K8P!^O0dDL*3<?o%H25Q>?aqRQnPZwPQg}@I@}@~*)tt"
    "Z`^X00!)-hjG=J&8O%E)6t>@*!P^eK{7(27`;L28wv2Upk+sw>@n5b$5t;Zj-)I28zxnP@9GqpjMEsnCHeCr#LQ8MWkU^A}Su;gI=Zj)#*f>P~oG"
    "ujvF{wl7$|F!N7?NfoFRacpMl)4NYWu#?HC<dg$5MYzr~$Yh8?Pfg%}A0MZkIB%7Yo1%(q*vy@0ZAROPO2V&@YF$<-qa-MO(yoG0Po!aufi6Q40V"
    "b4(4MLv?A-7(-@PL@cMxzR*l%e_8t4mM}l-2FtvyRjHGzm*DD9c*Lr-M#@%^Nfm5ZLsok%PgAk}q$nEdpId^<u^l)H7J&K}CwUEf4i<n-1h8=uha"
    "xUj0X&0eGVq&Qlrqioco72k3-YR|RmfR11}XdCJ$6Y54Rm!Q3V7D^jw6rB9$riDlDo#4n4hI7!`L6`%PuVv29B{uoMjP1IhP)4aV*^Uh_Ow`U7)Z"
    "sx@-W3o3V4MBFSp}s8|#$M>H6@oWc{=?nn;tHqUZ>#4b;KEZO<_?&s;uCF&GRmG_P-3$?>d4eFA%5o`>AQz?{+l9XZ)|A4bA$g~T?5LWykSU=`=7"
    "-ObCKrd%6nOyZP?VMd*|TqO+kz|NAz#D<e%w^%`}4oI`z9wH3qJxa*a7$5&RIu)DS&MARM+cMKW_I6%G}3Cp@pCG6vjWB{M)DAEB<ofSpD}#LB{k"
    "WenKao?3YTR`5ofW&=_??9Iddp%dxsQsF7W06!nN429H0a3#9(y=``#BMJh)LC5X@$j-Z5`u+5mC!PQZOHUWfkn1)2<br^YL`GwOql3hlEn4CbVZ"
    "4zoJ&rPCMT|&~F>=8G6#0*OB&lJpT5cw~#mspN=mHl-vEtv;>F6S*)y%4B(ID<sv{x*z1Dqical`7*4r?7;E8g3Jdtd{WE`4^I>DW_3)3WJUs@wQ"
    "fzZboO-wUMuOnsl<=(V_Bc4ZO$Qu=;VGQSs|c9{wL-yZ7i0q^Z=$q+n=3Q*Ocg25RFQmlXg-~~}g5e&tx34DSMI7LE%<1>4DK?Z#5ys0zZsm>_ef"
    "zBny!F_uG(-wLWg2vUoZ}E?@=xz&3rZ5K89sEjmYaQKF>nN8by&}1DEn-L0WmU`&T@#E6h)~`3uiVGGuQ8XK=^%}0p)QZv5*#~DOITZY;zC4g4gl"
    "Ory-=-Ho}xOvW5U1<gX+_rQ0Zt)Wdx%c`v;Y>@(xup-QQ++QyHH*YdMJ)hQDwT6H{MwH^9p#<1mSZ_RMlZ1?JoCZ5Lr@@jxNoN0enScXWD_nR}{+"
    "AAv0|Zce6yP4J>%bmMcmR29m>FL<EYPdjG;%#c;?GcQs=b0R*|w}g6dDvfQTqg4nX=4Y!LEfp`ijC*aHJ~4rh0CtH9yx^Bumls-1OSGSe0Sgn0Nh"
    "m|BEx?3^3v!8yk%B01zdIc+BLWP}*00pwU=8R;?&ZT*{G={r^sgM65~%Y!A?xC^kIpsRi4MCD02~S1egqkPDiZd_qTOX`KX^BQbGZq8nfD^ELs-V"
    "%1QK_^oCV>n&t=cx7U-974qbEr%p>IQ4(AQ3pOuk7y4p*MgYasvJGykD7+HZ%N_v|XM8={$-HUf1xFAj+rbP8-NNRY*h+^g?tU_U~jTs-E2UB9vh"
    "pTuJ*(A`_k*RFmg*r*M<Q^Cpxwg?G56X$F)t6knj6EYteUxw>pA+ZPb1<`t9_qR1jC%rRBz=NlSyZUfLck-#`x7TLOz_Pc^j(E|P~l=E+H*g{5CT"
    "F*gXf20pAe)G{ByvFtT4^)3S#5kNXJ&pP)=1?_KAh7x_Yr&X0Vs|svree0SgyLf!=U=A_0^eeg+K528KlbFQ>b(8paqcMu;EP&MfimEZ}W<%WWz9"
    "O~}(dRhWig7GZ#cFCN5~4>ljqW4g*^MvgRI8W7G~8=V4*_~!6B#-tOZL*pq}?ODf*=x%aJ9a-j)kj+r<Tv*vTio{}Dj9l<XH`ma{+D?H4x)+O@l0"
    "mHzJ$;m*BwtBUE2|<7B4~98G$Kj8^dR_{X|oD0<KVyw8|NV&jxLj?UJe}0Wkh_H_D7r*f921kIxMe4zYPs`Fbeyr0lE^YG;ybLFKfQphn;uiwlPU"
    "uf?5tL#M!O-Vqb7X7A4FY5>r<=nC;+NwAi~zA!WjpL80qvyZk_68M{?FS+zs)h6ZlS)H>y9*;u{sNl~jjmy>q3R~lewY_ZIbqrdF$!8K}`QCp=&d"
    "}p`Heg!ghtH!Cz%JG(vmb-!G1sf|s-rwc|F!*fmV}^ynyY|m=`;5D1(M3{aASm7#L|@?Gz&Wpacw&IE2gI8fMVy@nqDhr-$}<RkM3KtD*`KKS;*v"
    ">dZ$yF`kd&Ap$9HwONnU*SL;aFy47A&~!@GlDv^X;FU(nt?@8aT@7M-B|D8kC(#NK=#Z>bSY0Iy%Zv|m`4@k{#EsfvBUbRCP%y<9QqfN~GQE7IJx"
    "#dKldJaD4`9|;v>R^*TyiL^{sgvQ{+DDvbO3#+>-M%bdbnPk9Wl<NS)+~kI*XkVJt26oOgv=b^@#&j2E><^D~4~jC;q6#)i|8wXj1dzcYQ_}hXnH"
    "xu}M6#cmc+F>>zbt5;tnob)g^e>dLT3C}#9Jnt3a69FL|}XHyxm>f#ucA2j&kOLOXxzC)+D}O&#Yqx6?G>p71oH;pxuJB@KD1~M-2~IQ?A*I<Jzs"
    "D%~PKoW2{Z?Q}3|Carx3aPY)(^Of3UP`*KM;1(mJ&4z>ap%Zp#m#vV0g*mjvl5Y-oJR1$q~Ha$8;eWM!Tz;*t6-_a-A&qJyeDJ2ml`}3nH(0kAJt"
    "3sAlKgnV`Hnb6r@~1nu)TBe56x}jhKi;5kci>vghBM#{#T%)<L!tx(>w!siIade+{$Urh`E0!a%V)5}SD=ZGYMzdZkUGMuyR1A=WpJ(Fg0<e{Y~D"
    "#+Cz`1+&@rvgq^dlG4)YpVahKr-H^P{T>RJLWS|9)*Sv5=8+|z6eLmgMDPD1}^h6gtJJmeV^#d)xmJfIk>PzmP8EE^_9II;x`FjDzeK*rMLyGs91"
    ")R<aBd{g7b?U*~=?9lX%v`;F<Rl7%YATjX3G=amP?ZCJea|CG#*^es}%0kejkfEz9{_eduUbn^rKzZSQpvoL<SP%AeM@&~ZNX2e>lpplGGt72f<X"
    "-L=ZUfP5VW2ylA1tH?op64ER&wC9R}OC_x|z!QK+~JDW&n)LaZ^<Gk#*$w?YqS!F2C6iydjewV-(4^2AK0G9Wa8iLcFEqGs^99{ao&xL%bKwu826"
    "_0PSz+>^R7O!_?~n5d`EiI8Px0p*axPWSkPXNS7L+ruKn2%aW(&69F`vFwng|w}syp*KR(pt)i$epJ*jxFnT;jt^o1`&hc!H5y}CeU6Ojw65t|6z"
    "cEH?j@d@eRf&#x2NY;U80{JaxnbYpzZnL&-?e)|I9NkuFw=E-aO8F17&lGw37vjw%z)EoP~ZanSb3+t?p%=BtmQG71M^QVSqJlC6s?0*R*_!I&?S"
    "E3T*EP6qfG5Zfv~y3&8a){L>%&-9MaWU=}w527B?Ld8Ao02x%3@q#On*HzRCBxEz>>wv~TVsE~<_|v~wy#;A)r@EOImZ(p*PP<Y1a8ugv*EXc5KZ"
    "Aac8Ao5qp5ni=W3uj%O^GY~#EQ~BV0?#%_yf6Tu86jVF#rLvhmSN9WSxXpNS*wr?S&pW|h19Xc47OYf(zd6UP<~7JY(5ne)Q;(Pvii#Xj`>%vky*"
    "_DEjCh5;Gb1VS7PCpy1{vwFI$`&PeV<e(<T8>506|JOpV05)i~W4DTpBvr6Yn(=1P%$Y6>_4v!kTZ+&4lWBgzTwCr?UA_Z>;+zbk5$Y>qMM^XV{t"
    "`m+&FwDGo<4zTkG^nm04$<o0}oH_QYQN=XWPIIvo1_1&q<T6idss7x${+yNIlzGL*{yBoajK<d~)d@>--Am|<e5u%!W3m6|OCrJrWikH*kM0jh{H"
    "UMlYg1)Q|J79{}osd}wW>7u4x5H+_D*(>Sy^RKNa(%hC`W`)60PrSJK!~;`P+owT2C8V!k`4HfJu5N$F{@TptPFT}JkZ9&4FEBDP{!|h@iDfOl%5"
    "{*6FXhJOyukX(+`%*o<iHgLX~Q7E?q+_FHUcoGL=F0X#!v%zp+rGHF(s10^5Yq<UCaWEa$?s=GUO&#wN(Mb!$z=i(=&5xDi!P-tj-I95JiW7cuM?"
    "j<pDxH!1QRD<0g9{81>7e6pW8=IhEaAYQ`QzEv{>n9Qita0J>gI&?7OnB852C@6Yag^j_biFk}WIV>PVV3{~~1|r_@aK|kJ5g5%uu1k&9a{cOu-6"
    "&%C48xu5j%{cFAhOxA<X0GHX4|mJikka`FHQSo(!@EL+S{F$lZn-Bod#=<`7~jA%$xJh30zX8bK2cA*311ef(K^I1kw@;;ZU!qJS6acjv)j494p~"
    "&Vy)uASatm|Q>*AP|D&H0>?=Tw9TzvsU+Mvak&Zrs-9T#PfcVWq;~3-&0zKWvQ;U!51x^8r_;7DvoW1lzoo5Y&eUOkf$%oehP`Xc*@=Gl6n^A;AP"
    "f$gfVgSLtSqvnyn7MnAIH%tMkKNs74r`BDn>nVu!>b=g6NY`au1@cMyg?cu5R?Rc2y)2r9@xFs9%Q9()@|WL^q@wdj_urf#iadMI~6u*yoU8*L4u"
    "0lsm^TWLjOUvJwec4LJtCVznLG)A0dLy{|D`NxvES$|9-6Q!B@_Lj+I+i=s_UsA^EAphk!_TlM9uF3Xi<TR7v8lTgtYhJ{6UF;ZBo?T4LB|g>$hi"
    "7^SQZnu3-&u7l?u;{x`Xef&zeZ(c3b#Gr{2`iSl%C`eMoNPszaVxk+;Hl;^Z6dL%50-&PWs0=|5gdAo%BkqMY?{Ej)C<ZNf#5#H@g#85yf4fW6M)"
    "C5-g9Ux{axXmALx}4$@<1A2*NaACU+q?H8wvAX0r<4rka^~E3dyc=0a6@%*rpfTkWQXYgYJS9PTA><!hBb+7E^G#yoUzqcm^C%f<yM<9gK<!ASHc"
    "X{gX0{NVR_sH-;j;q`fD9U@z=%!f@3Hx6_pvC~YQ43rb!6*ivmDJzj^i4=-BXgH|fGF9aVYu??BInCt80GW$#mF{J#mDU&P*2`_#w|D}WD1*yi-1"
    "T2OGh`%q*YiRM$x8`>?Txo-X8uiw+9s*YH2R0ri6ZRE=S`HRMN?jlA#!!9)Z&>h&_C;I~q2SMJ;2()dA3vzJ7GF@jwC_yzfnrTH@d@yb1}HTG;rf"
    "PY5y1Nys<2l=7G4z1hg$)GPz(zfZB07^WoOAZn5Y=?6%Wg(!da}-iD<_a47|dn#0%=`u<;zVDT4-LX1BvGxzf@_esm5&^wW3~H)T?2mVmh}gELF>"
    "LP;HhM0eg>zvve}*mx~h)UQvIb_@_`;URMnCb=*qo*WqwU>a1zQb-{ki~(%oME>3qBXHz?*{k|K;zv)_yTA;>H_ol1_Ri>U{Dl<h9RbS!(Y%iMjo"
    "8i43TzHJW%_Rl)xD{h{0)oUP=QG2f*C5I!o{38++n8^_X5!sjKb*B^Ci#mhYtP57&vMRD>DA}Ru(80<Ur|5T{fVN1xVjCv>Wbx>{f8|)=_GA+;7W"
    "fzbWcNLlASL4Xigc7UH0JMcoN`{f?dwqNa5ACkUg@3OXz4O$wX==&p1i2|$(&fvMsF=|Qdc`i=Mfj*++Y-@J9y`z_^5Z;!~eZ$|f`DKas-T7nUi{"
    "I_MiBEU^)?6RdKV5$KXp#!s)k=|jF)sV{k-x9-lw|t3uht>u7rpoen>o-bke^?1cA(J35LA|nx#K#QE)-^#-IHH_M1_kEKEhxr5A`HiCo73Iob&h"
    "l2)E2oVRX!*|!@OOaH@&1p(iCa%*a{X%xf}|B6<JdT_`z0)sXVwYOYpg%WcYpbQ2Y0$HY~1K$kpArMqJl11d1twYp7|83!`cx^!>J-1ntOt8<>_y"
    "U6&)<VU>!gu3nL&smm!jO$-S&U$g(R(Xff8J@nzEOh{8P;&YBfwi>7=CtdB8)2xO#*9^sQEuN<x$=fmwmv`PhAAaMTE4wUxzhhALezq_R0gXFlp)"
    "%Ju1jOJ**};UcU?IWzt2bo0JhKMQNHI~vmOwE!^+i>rC+rT;wLdhoy`Qvb^u})YTc7e1N+IE@Za!fr<wLqEB+ufH7?X&xsbeyXFYUMi{{B@G(62<"
    "7BIjJcAq!&++ZQavx;nvGkSmKZP?8$X<+{)?Wa5tyj~)=E33o7~uFi5DVpe49;oyX*Pl`;W8r3&WoW?Y%<L4ffM?L_U>^SE9Ag5BM_QOr*j%q#=&"
    ">OmQ-!xG9=5QW8n(xPz^B{aFgN%Q?VbcZ<uDB>z;6s7(g*QeCaG0kUioZ4Y2VvVfxZzAmd;-pXvE&FjiV9k0P}o5O_X?m^C|4;{;<))1JqG4u@07"
    "m+)!MBP8|Fbq%Yx2dR2ig$CWMDXsQZOaw9F8U-T@@bD!|7}gvVb}!d0k{a=iFn7W^U2H*-b}=Eg53fO%9C$P(df0(PWs)}{|00rB#e?dKwkyM$~<"
    "iZM4{@(NGX5^^v?z_xgyf+&eRU8?mp@MpT|14#_6|C<xw$`t@hIjH0kE2{hV@R44bij+bgI{U)9;D&$M#_qgx;A(kPtfg1P=+gw`OTc&or#awUoI"
    "_6dKtF!8(#xGqbh-3%y{-)Lt#A8Nl?Esp7MAA`cfJy!g2BB!ttR8`1=zQghP`3s^=*NOpy;8amH&}TKZygsWm69o2bz$$@-BlsCoIN8dO}}HMZS8"
    "X&BUw-^XS!<H+DX|MIi`vH6ZJ^0cKKOe0XE9wL$gb@8y5LJs&~%bvB<ie)CVmX${2<D=GowF}P8R0YC!Wi<pCex{perjUmF_o2_t=3K!5nmVXDuc"
    ">F`Hik}_<=1ccw*_OQej8Bgs5Y@xS@QIrFL35i2Cq8bBKiLKoM3m)VKYyWmy5MmB-n7_5##KJpl!k+aKY)1KbWxh0W2FG|-^&xq_aX;>+u<7B?-5"
    "`Iw>E#FaRrX1mw)?hp@Us+jNyoJR23ky3KA(=sPQj`EPpBA_BYy`zl&DUg6{uY+q7308tR*ztwgWA>Dy~HEYQw=dxe>?AXEt$!FA*~2+mH4AXOmj"
    "yqj{8VElENe$i?U_N06@cd}w?6lEIk65S4j|IxphR*xcJS*I_I3){kcAt|TsP&7j@FtRNYa7h>Lre|TkI2{&=vTnPs;Yt+T+_`N#Y&KS_@nAQ5$8"
    "Do-#E_EvNTyu^UV*?r8*vRhx1_u%6WA?YAXNP|?VWo`BBjx;eN%Vr=`%$0CXx5{f#n6dQ3Ww-ZngdxGs*Zv9EPrn`azkcATXRq$w~}HTQr?;1Pfd"
    "^{IHmpVT(F~Dl=@i4f9uQa}7ynM#<S45F|TcC@XRq<L{{EL1{q><B*niCy4v)@gb!v)vfI~MIBWQ9ZNg}4;WzvL(%Fsru)MjHNV9#S`R%LM1b1~?"
    "MEBM5wGln;t-8np;pINIu?>hZk`X;hk4=1w4KYFWFIc=$}L4C2=;-4BSd*-jT{Gk_*~-;TWSrXg$psc5fq=WND<vcckHU3s%k6ZRT!aEyp86;1^T"
    "32f(RT_hNj)F!_LW4MUlOja|}Drr(((z|CSEfC>_pPc=$7%cmTDrF{M@qB!G*BtBQOq)L{C-!S4#2t^lk&<p&TY0Q+PXs}d+hZwM=IauKv@Ye>jz"
    "(ACN;BrFy3vn#n>8#DALs!7Dc@k%S`z*#yRcMG~u;MRgDO>5m!rjhE=aS}zkKn_h1S17K6x^e6a9i55+ipyL;ZE}hlvvy~V3siKGESGTFT)b(yPX"
    "O`%=Gt7_YY@o)!?EN8;J7@30*`#gD?S!DQEpHkafJrIEBaPA@t#Er>ELVIvF^7IAub@$cI{zQIsn^>E8g!&qDZB0bn-1+i^yEH!W`rW7D$*6s>Z+"
    "K5rXi19;9>V6u8Gepm!repj(S|p`e_9U$GH(#p?G}Cv&bn^h}3qjgUkL2de|up7tuPI1PMdj~;H!Si+66z}O+2{*Lz*^$_KQ4*1$b9<)Uizn*Knl"
    "lZfrx(@uatA?Zt9lW|L6^UPmg?7+T@WXPR3Jfk<1N72YYX62sPC9}=5RoUq#xx#p#IRqafJClG6h9Up8?8;z*5GxCy0DCjq`>U4dBO`0;RFXchD#"
    "s1TgO;24!ZIL0Nx&Y!7CI(!@wuoZd>}i>WI&E`9-9S@+d(NJX(bxs(vFnR#48muGD}OZhwcX^BPyx7>*0*-W1h{buk%-#QXwgqZr#7z8GqMI=J%2"
    "129({0t)6BGzlhPLI&`{o73UZy0s7>UeAG;T&W8R{-du<OT0lM;HSAYH_nA_*y+V)9}cE9)-HYH^!Ntjb1msgryU-11@f1BfZ!73y+EQ*xZ(8Dtw"
    "l_z>fPbP6{etDM+dRCo(`jJT$Gk6!5h9y`EG-~;gr6S+7c>cyWs;}Oz5}snXtajJMQ@35OD7w*b2EpX8ESC7+d_|sDr=7RP@RQFVM(+o|}dXHyWx"
    "oDUCJMkse6Vf_R{(fo5|k%qOotDZ9^=B%J2D!PX8^eL_9KLXR1DUg!r+XDPiWT11)E01#aby6#G2bHL33B{mPB<yakQib{bO0+-QxOh#Z*k(=09j"
    "cTbN<o1+iFbq%cauE)?0jpj>EMT;7S2|Wtc;mv=?YZ2vg;NndM@}{t+$yG0YFBPg9Jp$3!z121_M|F`DD0eW8oYx1#f?Sj5z%8nJIc+y-k2(5JuL"
    "`vDRQIlf|%pnNZ64sI~XF|XY?X4K{Wq24AxLx#(_u8ZqV~~GeLn-GmwR~NEm6s(Dnu``?vA9Hn#<xM7U!^o50})4HuO!CZ|0}%*WOu;Ijc~my8B|"
    "!-aAplmeD>;qapd=y0rCy^F;JAe)Jy9%zqc41<ALnDUUr3HwcqCHt!~FQTP$`5S*4%YK3!b5#m$mJdi&V@cRZ8UyS{-2tHeKKOBsUp?D0ij`80LJ"
    "FALum2@ou-8Vk^-mm%eu=YUxF)p>HK)2EileT3W3g0I@#E3)2J_wKxhSF9Rd~3>=EtVo320UXsa1#_`azOmj!uTLsAryIJ2KHm#E^?puc=5&BCyA"
    ";GBo+JEA}z*i3I3H<tX&y;d9UdBeMhw#L-^@C+w3@Y1z<}9u}<?+@xN?Sl5SJzVoWJ99a6*R0V00iWX7BS>_CbNf8@{=*O!jhZ{Tf8@g$PInd6?n"
    "i3|>H+<lnTkGVos*uhQlaj2Bw9?W=fEVxY5fDLK)M>CFe<Ko)x8N;tLT-Y6TG&d33l;rvDb8_&bPRoUJX`ba8_pfx*lpk9t??7v4t(0%fz{w3f7>"
    "p)C}h@?%^NZcg=jZwLAz1K&+TKdgQ`b4pqP^{ng|qEZ48e~rd`vu_+!7<Cr?D+iP{_8`cLi)beO|L^=lgp<hTnJIqk6Wj=@Re5lY9o8r&W33@64@"
    "U4Lbl*W=oCr-RZ0g?pnxx}Y5UgYu&ZFt&<xqfoPHdY}T(YG&7@@ytAz2Rh?BPk@K)Vb->Twh4ACFh0el11qo!vfwp;5@FKP^|LqBvy=Eb{v?PO6A"
    "0}}QtYJ4gy&ErVNl<(jBI67*-wUnkg0;|76d~kY;Wi(FdGdLFD^RU#!|n|1TmsQ(8EM5N@R#%JRAlTG_r)ZHH>{U^bJll<27ijqKh}p)tv;mk`l#"
    "6eAc1pqXIazxE_#NP)r#UUBrnT3N30=g_8{!hysSVdC{pZmPj(rjP#9mg91`==B@{WAj*7#($tgk@d<T{A15Y=@yC-dF&2R;IxlE;b(OPYlv%+SE"
    "}DWi9gjeDq^Pv`ZaXS??WDVvTP$5372`^%+(IJHWew*5ipp>_kihORAn&9T6jn>aVgJ{m!f=|{Yp=i0J$_1TH!SZS!vZ)L8VBlIS<9gKHZ~!v0C$"
    "3t2<@g|gk<Ywf`$mXaa1QOg0EK6f?#<{Bod)&Veh)7)!b?-mtaE%43Lf?`gUQSramFld9V@cdGxQJVkV78qKa^n2!(TSG@51Ubop60y@?@T?*ksl"
    "8sNtE4K+oQ(q24gjfvp{%3|i4T0e6i$La74m58>c`uV99r+)skd_cTl!=b*^ww<sDqiJ@6P&hEOWeNz%qS;#ddgxtV@t{>5IAw4-;UYrKAc!zfi_"
    "-K`l`rXxUgDMY2nkHcpfs^44~Jo7WJKCI=yD~lnwTMwO2+=z6N>(~k3Iu6x}wrpHB$dOz@dUS5fAIC%)bCV#>IU;aWS&aKOu(WSjm*PvShn}Jsf@"
    "aAdZUqq?`|$`FxcBo~M>2jhtTizV95y+$HsT$H8hiahE%Falu7<XG)Ka&Zpsiu=aw(EeJ#-b@v!>;oG~n2&qWhM5m|E1fTd)?~)8jol>N62{7iCm"
    "?dI(fA8thlN<T*-%-i$Sl7AZHNO}V?cqI|pL^7)+Y$tuyLWB6+=qL#7I%t!+|xSZUD6(R&0s~yMqVYPVT#tk2=@?Tl)0mm3}VlSg-{#8L<bkJ0eB"
    "xE8XN?#Dtf$du%&s2Rkr)+{J{1|xKszgDtO2G&wYu0rlCD|ID{h{Ev?0u+Gy7m3u9bTNx&o)+6zjGwt%NW80xWb|Bgp5D2~FUCI;aN(4Yq{ahZu{"
    "LgcC%^YA1b6fsHFD05$an>*%-&u9Vg&bIc5xY$s*OEU}YkpM#i;J!&B=MJ?h&7E7VI&Xrg3;;POx_lKeN(}Zu-8i@zj_q?g+U2_+GyZCZY54GN9g"
    "lbJr-rL~c0{`tZgegj%G~i3xWQpo12-;xa+f4rOq4!B+2oNR-3OMgA5?AmXxI2t(CyKJ-TOwPt_Sia)jea<_;9|I`55ARAdId7bSK>#YKVJSuKY1"
    "@hVwwBdT7;``eVagu7Q{M;XYAw9@r9vgFK<3do1)teS#f@N4&nNuN0n;+~r+}*c=NoZ&VgR6(3|e?S7?>wFG=3EE&?><@V%OHqH+o4`4(%=(VxS)"
    "X|;gA`~he_VybYf1*qOHyy#KhL5A=Es(;21+&M2mB<HH0O>~85kt;<IMH!EK2!Wx?1VmJF#l}h0*pGt*&B#9MOA=lO*(wd&la0mARV2^BuG302oI"
    "iO8EKi}Q5r5p!$B|(gJJ*+!&h{w!XYqN-`6QAkc}Z?q(PU0g%qrUFjXUos;8yaD9l1z%i*leld{(j+$ItnsDByCq3Gawg798kxW+<Me53eN=J^@l"
    "l?^7Ot%MYfspb-L<C)4CpIkzDLg~(vNAaGt{m4VR=y{$Hga9d8#(XY&Zx_B;<)=$Y93b85jX#_A=W&fc7XO|&d;;6Mba+Xln<r+l82-n*jzagrvQ"
    "IPI8!XjBAHl=l*MM~uEujt4wmwj^V~b$wfk7izB*@Hw)47<ICy19F%>hivN(1<i3n4xcQq>|RD2bR{g-i#gFX%FqwR;X#jb}x^im!)Oukk$wILfZ"
    "fS6C|UE5wcN9F!jLyL-+hA;gNes$qS|r5j8iht^LyFE`y4o9YNe6~{@dE>7^LHQ`}S?dTPi3U!N$`5cu~u;_p|WIGRA66wAN^@X1Y0eRJ<C4wT4j"
    "T>Lpq?~MgO`=>1+#OC?AgCGI^XM%hB>RCh#vF9OX;!)JJn`07<mY=~tfFIgC-d(my<c#Xia23<vnmMC%QE$WbTrK%W82OmM%PVz-9upuA_CSY1Sp"
    "3oH+&-|?zdCy1d5D5&7b!6vqt~$r~Ui4`GW&cf1;Q8vt03~KvPgSH;7pNS>n6+!($J0M|d49RMQAbRc&yY*8tG4iCZ00q<#>Uoen<fKQw(9kNSg_"
    "k7uxctUegG{J~I+`<Fkn&+b7WgibQ08Qb`w-KN`mC_G}hV}z-q5r?Q*L@b~i&U8?Z9QEimsZDQe>Fhn7jV^tt6aWdn@h5<sEy0HYLBPhn(E9VV=L"
    "UkqPNPjGj-KT<c}OSdtCw3y<av*K_5d*$fjhW1+Sc!AdnkNAa4uLW9C2$z<T(ZD<f4l(ueb;c3`j3Z9pB9e(NQVWps1yfpN?4F;|bIz&!Lh=Di{L"
    "8*|blo)v6H+4o6DV2Eo%{|BqTU;Y5H1BV)Q?p!126Tq6yXG!Q4JgNs<qgLQH0n1$1mL{_k|Ibt{)^#`T{>7c};F37O(C_P!WBplOZ?segqY@@TX<"
    "H4;Z5eTVIR1e!Hjg*aw0oM^G?BP!Bqy4L}0`SM9Oqf|s7(T+;IfR_rKT#F2_0z~wm3M(AD#EsvswqYv*p5ZVCz)`5FM<p_ADF|b2|PK)osriS{@5"
    "j&sEmP}@`%OQiQuR4P+UZ@ff)LSE{Ee229|Kz=)M4UW?cKWtbJ1}uU*|~0$%kM2S(;TSHyrKP-LV>O@O=8m4M_V?MtBWj%J!Js*7pVM<PBICRC}~"
    "Rr(&0<fKI%f!;nJ5-?G?wtD~$O6yI)BE6lFsT2-IX)$1iChuj1UM9R7G*aO}L*okw%KJc~l1==2XptEvn7J}KVMH={p=`1c!Njo`)EaE90bPZeWv"
    "<;aWJm(KZ6U|BGZ>dbM8Lu#c&C_!d{G8S?ZJEE-0l=j`LuM=7SJsuTU?Dvg7UjS6ee7*l1cAPlpxNzQgA7p{ej`;gzs=tLlZTZw^$U1oz}!<Q@Z>"
    "d3~&MEwz%_}D4qlx;k{fjcpO+5;nvx(;-$o(F$V5Io-qGcK>@;-cNA3>^d{3mF}*3W2BqflTr)n*nRYmE628%Kc-bbHTW$!>t%V~5PA`Pu1J+T(>"
    "}4NON)ykmY$VNXG_FuIL1zSx3`ObU&pC}L)8~+Pjv>a3y%adsa7_qn9)W(tLA9H46e3*Ivf0`&Nhi!hW_%U%5<jkS&C7g&3Z{9X_e^aE0jSw_hFG"
    "#(uBr-cxDE#OEL`4mVV8kEc0RNxJVR2oS!k3ea=*Yf&J9%!DEH)+>&pjVm)q@Fv*4C{1L@<1wqTaD`;wptk>KVcl{X!jjsVg(<kj*-C6#e)JUwO^"
    "i&fMiR~Ry)K%ik8a~c|vj6wd~aEq?-Mji50x9q-54#OaTykwMvbZ{t~ETu+*WvxDp6i-SK9J=5i?VLL-k|?x*%c2$&>nsqejXxA;YBU-Qdt6ZTkw"
    "I65!8$Jnq&QB4n#eu9s*PO}dsG?rkeDzLC{gV9q0Pk#Kcwa3?vyJH=LcW8D9VGAr<JRS@i{6C#4A`|8`s)3rsMkXX=_?a08M!H2hKQ1>m_9%;oz$"
    "W_5B4fRsF)cAotTi?`Q*4)l7z4vn%_XIVdiFl;@9c^qHIk2v(Z}+w(cN@vx%TSt(nyLXuILBKkCGkYnu^=(vOZ9dx&}uhW5G$Gs<_&IJs7R_uJcM"
    "yx&3MmEugtynUMJ0IF2{g;hYW464=<-!SkK81?u69%P-Jltai;afC?KP4Jy<1ieImLNU@0iu|eYb|$;AwPP%b@=<YZFC;Phs;P+au5%JqgMmKf*q"
    "L`YIR&?dlJ@_Y55_*M}d1J3wd`FBpmg0U8qS|=cQMOyTHZwPBJ9_At_G~8=Mcc!1+Yi{E2ZdqQvKwDoI2g5_K*0a;+(}&Z&NWvt%`~TG5-qK_-K&"
    ")Q7ur$6dCO@~lh&dPvH1h3(+>7ZkgDY!YCGXJGg|gI*CDuF8}~3;((7Ps*3L^(k495VeUXf9aMc6;%bD&}pySgGYC98))-ZJx4XSOhDhlR3kwK{|"
    "gsuhj0}z=KP&<u|O?}DuL&@rdtK2`7*_N!s<<MuM!|q3S)Ay(yG)HqvHkQ7!PI=3{*}6DvSl%TtO$OjnX=ezF0w~6fZ<~B`8LHQhL}lkJZxnIXKO"
    "O<n+)vi@%Xz`NSlE+VH<H0z!Mu&BPsrHQF#XCb}yneUSB3oNb^GQW_CdhRD_!+cY}l`4Qboxz=tv!Uv0{;YKF@bKvw0U0xY_`pN0Tjc>g)TYJ5RA"
    "6Ij?7P5?3#96|H5I^<p!lBG&0{LSJ5#r{(+)jko_zYUv#@cU;&7fL7oDG3@IS9$FPTecm_oYrA5R$DhU8LTlyWwfa)YrPv$}n{OG*$VJZrUe7?G`"
    "Dd{GPV{+K+PKi#Q}c$gAdpM`)q2*Jo)77O!{#Zk>s;a^nFzP;M=5%yQTF6UnqXQGPZeMO4vKeu{<%5a)h8$YJXOghfjuth|2}n=r%xyF%RFi<n!_"
    "??MDYwC+PXs8py3si77m<zV8dJn|E7ve?fDp>#(KkCbhmMkYa~R=o;*Zps8ta)|JzHhPwz7?Dbupq3hg)hEOi$+9Oc1cO^4#NhOH>#H1DG1Did2R"
    "6V&n2maRz>1wnm5mZZEnfhj*E(!jss%^i2RBWda`tW3G`M5xMa1v?gnFofH*wyn14smS(ZK*7crGkOt}|}7=>n=#=7cYYVAi3SLN5j#!iF=_a8S+"
    "|{B7DKQ1)!_iaYdh=0-d88+4q&5sYWkJ>Z5Hzy6p-ush!%ybdQq#auDk3LK7x{2-IYRBU6_TM9y8<rmvD+i}GoD=eunYda9}K>rjjV;?jAs$GYgO"
    "DbL~O=&r?hBgft5<|r+I3z^FRxR~^-~=`u`b6GAA}*AB({5KgyE`f^SBzmtt9{WVGi{u6eGONUmTdMx*sDM^8-}|?=|RJCkOA%+ov$~+MV$j6rD$"
    "_PTAP%*$a3TU7Bqpu*Z|Cb#o(yG1kv2MS{E8lqqgXRwx?^XB>z-1StPSmEU`q*VYUe=h#*M2|DnT2;_=u*b1O8O$BfVfZ9n{#rC!=m<H?Bv@i4yk"
    "0(s}i#o=3iakyxsb<r~Ls@_X4Wk|HviXst(2cCit#)Ux<8E&jFuY$g~G+APh&AU9&mC&sQy`K~~pk6e(Yq$u5RUv4(qDA#5Wdk^qfKyKhfblH@eP"
    "~Jhxgh$o((!F+#rug?jqZhJfe2ZNo|M5X*u8?&3nPjpHf0}Dc52Zm!NGHZ$Z|4|2w<TGMG@`H4YvLU3Wt?})rvNtNt7ZmDl(7ehU;zDGW_BXGuk%"
    "$KGOEyn6~#u=4JG<K>%FD(1e<o;Nmf-mMX#uR!W+(sNOG}a*NPHcp!e23ry{W!+lWdr7L_tydjOzK?EDC5db!Q8i=|c0+C&x>dKjE*}l{<k0RTR*"
    "Z|Jvx$tl-T}<@~)z`9Qm(P`piaHiag?M-lD8obES1iMYJ7e{sMEelQ+t4QVJET~lB-N>NuD?7?z{X=>@C9qn9IyUOv-RTWkK}3ljy9uNiZ*y?d&6"
    "nmC;_i*bOd*~z5Hkvn-&0fnf%-9P2IKuXe@MMdc%4(r1e<+VYW!F&haBePovmWolCp(G`<~fiffReiF(>|$G5T5^x>{X4JPa5eq^k^+NZZY`qRjK"
    "MSZnA|FH#lTSd3s@oK8PS_-G7@3ab@wAeDZ=_2}(5pdh@{>S2W+R#pe&}p&P%qQV#2U^CVX@$pH5qS;1w6jU>fme6XASxG3wGAYbz%&m$(K_i|jq"
    "%#}t_%1ynLDRF+CFW_rY%^Tc9rE;Sz1lQsWx1iR!V8KQ|2*c?K16J+Ad|a7s(1lYmX+Su}uS1SSc2+=T{SyMiqH)W%+UZX{ren>Wh*^LmM<Kv}0I"
    "g!jK00Xw{EsI1Tuvbv}WK>!Ujl3F1&)n&eB%dr;I`zD)9cGanh?ldZjf&s^B(-ugT(=zW>Vqg6aQwn4Yqx?HvKW@BrzuSQvqy_bn48l0ltt3J)Af"
    "exE&q0wxaEtJ^^8T|^~kF0{p92Z>L)8aK*)v{$Oo13zMCR<#hF(p_PqPd|-_KswnsM(kJU2&Ek#)Y8Yo|@)q9B7wqAXx8dY=&r|Rhd=Bcw`YrmTq"
    "Ly#)fTX8m6)Jn#opaWQ~SqXJA$ae;JSYNn0|q3}gE+wi6>_(;WA^tiEXX<IDESKek57X)ff;jL2yo#6~{S{Kr;Jc+dg^(eP#0LuNThY-?kbMFklb"
    "++<w>26bc&B56mk+9HJ9k|rK(p&@NI$OMBeDfF{#Bgh(p&hhSVjFR^EA|nBKQJ+=n=~G?!zgoh-)oYi3lv7iIa;jGTNVPH57t^s;<8rDpPSl?ojS"
    "*{yGS<~vQF|#qZDfs}?ao0_<b%pbk!b11)HVv2%3V{n>z-1nX~~j$IveX9e?gmLJC{?*W=Wlu(m{#F?v*DgQkP_(njopQv9~@)t7fDYMmpBaNX>i"
    "$HddtR@Ft~%yL1Xtf1p(dS}`E?_|bvhK4~YUE*=!dn}<=~Xd$acywn~yj!^t$wR2Q=ms;nlLb?x?&p}-r{<GD}Y1yzHr5a8yB==L@9AZ%m8g;f&$"
    "(a?OHEC6uTFg?bSxF^k((*;8P>B~E44SBq1Wsz(>PKqkk_N8E%4(n!0IIA`WmiDZf%CM2s#I9DQNI*5Nl{6Z6-G%{RAa47^ZZ45i4Gr9DypF3rYd"
    "!6-b<=ef=it{vvnj<@ev)W*OAH~YbR>{pTQb8AR3~%2zEFSgoJWn2LORf1@I|9kfVAaWF_RV9ta6NH3xF84Hx8`dic>Yx}cLYAV<@H<~33wqL7ni"
    "ASc0qj&gyV_5wZ2g{um5+6pij0Odcp9R"
)
