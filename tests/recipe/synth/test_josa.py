"""Particles computed from the word they follow (``korean.josa`` / ``korean.final_sound``): a
table of hand-checked cases, and properties — a number or a Latin letter takes the particle its
Korean reading takes (the reading spelled out independently here), and no fallback such as
``이(가)`` is ever written."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgedsl.recipe.synth.korean import final_sound, josa

# (word, particle asked, expected) — read aloud by a Korean speaker
CASES = [
    ("회사", "을", "회사를"), ("종목", "을", "종목을"), ("종가", "이", "종가가"),
    ("법률", "으로", "법률로"), ("시도명", "으로", "시도명으로"), ("서울", "로", "서울로"),
    ("학년도", "은", "학년도는"), ("당기 금액", "와", "당기 금액과"), ("주소", "과", "주소와"),
    ("2023", "와", "2023과"), ("12", "이", "12가"), ("10", "을", "10을"), ("100", "을", "100을"),
    ("1,000", "이", "1,000이"), ("20000", "를", "20000을"), ("300000000", "가", "300000000이"),
    ("1000000000000", "이", "1000000000000가"), ("0", "이", "0이"), ("1", "으로", "1로"),
    ("3", "으로", "3으로"), ("6", "으로", "6으로"), ("7", "으로", "7로"), ("2", "으로", "2로"),
    ("3.5", "이", "3.5가"), ("12%", "을", "12%를"), ("82,500만원", "이", "82,500만원이"),
    ("KOSPI", "을", "KOSPI를"), ("ID", "으로", "ID로"), ("URL", "을", "URL을"),
    ("SK", "은", "SK는"), ("KRX", "이", "KRX가"), ("M", "으로", "M으로"), ("m", "으로", "m로"),
    ("N", "과", "N과"), ("R", "으로", "R로"), ("A", "이", "A가"), ("B10", "으로", "B10으로"),
    ("DART", "이", "DART가"), ("652.3 Kcal", "을", "652.3 Kcal를"), ("ppm", "이", "ppm이"),
    ("\"삼성전자\"", "을", "\"삼성전자\"를"), ("「민법」", "이", "「민법」이"),
    ("공시검색(2024년 12월)", "을", "공시검색(2024년 12월)을"),
    ("학원교습소정보(시도교육청코드 B10)", "을", "학원교습소정보(시도교육청코드 B10)를"),
    # brackets nest: the word before the outer parenthetical decides (session 35 read
    # "기업개요(법인명 (주)세아메디칼)을" in a synthesized query)
    ("기업개요(법인명 (주)세아메디칼)", "을", "기업개요(법인명 (주)세아메디칼)를"),
    ("(주)세아메디칼", "이", "(주)세아메디칼이"),
    ("2019년 3월 2일", "이", "2019년 3월 2일이"), ("2024년 12월", "으로", "2024년 12월로"),
    ("사업보고서", "이나", "사업보고서나"), ("법원", "이면", "법원이면"),
]


@pytest.mark.parametrize(("word", "particle", "expected"), CASES)
def test_hand_checked_particles(word: str, particle: str, expected: str) -> None:
    assert josa(word, particle) == expected


_DIGITS = "영일이삼사오육칠팔구"


def _sino(n: int) -> str:
    """``n`` (≥ 0) read as a sino-Korean numeral, written out: 1,234 → 천이백삼십사."""
    if n == 0:
        return "영"
    out = []
    for unit, word in ((10**12, "조"), (10**8, "억"), (10**4, "만"), (1, "")):
        q, n = divmod(n, unit)
        if q:
            part = ""
            for small, sw in ((1000, "천"), (100, "백"), (10, "십"), (1, "")):
                d, q = divmod(q, small)
                if d:
                    part += ("" if d == 1 and sw else _DIGITS[d]) + sw
            out.append(part + word)
    return "".join(out)


@given(st.integers(0, 10**15))
def test_a_number_takes_the_particle_of_its_reading(n: int) -> None:
    reading = _sino(n)
    assert final_sound(str(n)) == final_sound(reading)
    assert final_sound(f"{n:,}") == final_sound(reading)
    assert josa(str(n), "을") == str(n) + josa(reading, "을")[len(reading):]


_LETTERS = {"A": "에이", "B": "비", "C": "씨", "D": "디", "E": "이", "F": "에프", "G": "지",
            "H": "에이치", "I": "아이", "J": "제이", "K": "케이", "L": "엘", "M": "엠", "N": "엔",
            "O": "오", "P": "피", "Q": "큐", "R": "알", "S": "에스", "T": "티", "U": "유",
            "V": "브이", "W": "더블유", "X": "엑스", "Y": "와이", "Z": "제트"}


@given(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=5).filter(
    lambda w: w not in ("DART", "NEIS", "KOSPI", "KOSDAQ", "KONEX")))
def test_latin_letters_take_the_particle_of_their_names(word: str) -> None:
    assert final_sound(word) == final_sound(_LETTERS[word[-1]])


_PARTICLES = ["이", "가", "을", "를", "은", "는", "와", "과", "으로", "로", "이나", "나", "이면",
              "면"]


@given(st.text(max_size=12), st.sampled_from(_PARTICLES))
def test_no_fallback_is_ever_written(word: str, particle: str) -> None:
    out = josa(word, particle)
    assert out.startswith(word)
    tail = out[len(word):]
    assert "(" not in tail and ")" not in tail
    pair = {"이": "가", "을": "를", "은": "는", "와": "과", "으로": "로", "이나": "나",
            "이면": "면"}
    forms = {particle, pair.get(particle, ""), *(k for k, v in pair.items() if v == particle)}
    assert tail in forms


@given(st.sampled_from("가각간갇갈감갑갓강갖갗갘같갚갛"), st.sampled_from(["", ")", "\"", "」"]))
def test_a_syllable_decides_by_its_final_consonant(syllable: str, closing: str) -> None:
    coda = (ord(syllable) - 0xAC00) % 28
    word = ("「" if closing == "」" else "\"" if closing == "\"" else "") + syllable + closing
    if closing == ")":
        word = syllable + "(x" + closing  # a closing parenthetical is skipped with its content
    assert josa(word, "을").endswith("을" if coda else "를")
    assert josa(word, "으로").endswith("로" if coda in (0, 8) else "으로")
