"""In-process Python tools for the NESTFUL gold sequences.

NESTFUL (IBM Research, arXiv 2409.03797, Apache-2.0) ships executable Python functions for
every tool its samples call. None of that code is used here: each function below is
re-implemented from the *documented* behaviour only (the ``description``, ``parameters`` and
``output_parameters`` of the tool specs inside
``shared/external/nestful/data_v2/{nestful_data_excerpt10.jsonl,icl_examples.json}``).

Conventions
-----------
* ``TOOLS`` maps ``"nestful.<function_name>"`` to a plain Python callable.
* Every callable takes **keyword** arguments named exactly as documented (``arg_0``,
  ``arg_1``, ``nums``, ``k`` ...) and returns **one record**: a ``dict`` whose keys are the
  documented output parameter names (``{"result": ...}`` for the math primitives,
  ``{"output_0": ...}`` for the code-derived functions).
* Pure and deterministic: standard library only (``math``, ``json``, ``re``, ``string``,
  ``datetime``, ``xml``), no I/O, no randomness, inputs are never mutated.
* Functions whose documented behaviour needs a file, randomness or a Python object
  (``read_persons``, ``read_source``, ``generate_signal``, ``create_foo_instance`` ...) are
  deliberately absent; see ``catalog_draft.md``.

``answers_match(pred, gold)`` implements NESTFUL's win-rate comparison (see its docstring).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import datetime
from itertools import pairwise
from typing import Any

Record = dict[str, Any]


def _num(x: Any) -> int | float:
    """Coerce a numeric argument (NESTFUL arguments are JSON numbers; tolerate numeric str)."""
    if isinstance(x, bool):
        raise TypeError(f"expected a number, got bool {x!r}")
    if isinstance(x, int | float):
        return x
    if isinstance(x, str):
        try:
            return int(x)
        except ValueError:
            return float(x)
    raise TypeError(f"expected a number, got {type(x).__name__} {x!r}")


def _int_like(x: Any, what: str) -> int:
    """An integer, or a float with an integral value (``4.0``), as ``int``."""
    v = _num(x)
    if isinstance(v, float):
        if not v.is_integer():
            raise ValueError(f"{what} needs an integral value, got {v!r}")
        return int(v)
    return v


# =========================================================================================
# Math primitives ("basic functions"): positional args arg_0, arg_1; output field `result`.
# =========================================================================================


def add(arg_0: float, arg_1: float) -> Record:
    """adds two numbers: result = arg_0 + arg_1."""
    return {"result": _num(arg_0) + _num(arg_1)}


def subtract(arg_0: float, arg_1: float) -> Record:
    """subtract two numbers: result = arg_0 - arg_1 (first minus second)."""
    return {"result": _num(arg_0) - _num(arg_1)}


def multiply(arg_0: float, arg_1: float) -> Record:
    """Multiplies two numbers: result = arg_0 * arg_1."""
    return {"result": _num(arg_0) * _num(arg_1)}


def divide(arg_0: float, arg_1: float) -> Record:
    """divides two numbers: result = arg_0 / arg_1 (true division, always a float)."""
    return {"result": _num(arg_0) / _num(arg_1)}


def inverse(arg_0: float) -> Record:
    """Return the inverse (reciprocal) of a number: result = 1 / arg_0."""
    return {"result": 1 / _num(arg_0)}


def power(arg_0: float, arg_1: float) -> Record:
    """Raise a number to a power: result = arg_0 ** arg_1 (base, exponent)."""
    return {"result": _num(arg_0) ** _num(arg_1)}


def log(arg_0: float, arg_1: float = math.e) -> Record:
    """Calculate the logarithm of x (arg_0) with the given base (arg_1; default natural log)."""
    return {"result": math.log(_num(arg_0), _num(arg_1))}


def remainder(arg_0: float, arg_1: float) -> Record:
    """Calculate the remainder of a divided by b: result = arg_0 % arg_1 (Python modulo)."""
    return {"result": _num(arg_0) % _num(arg_1)}


def reminder(arg_0: float, arg_1: float) -> Record:
    """Calculate the remainder of a divided by b (NESTFUL's misspelt twin of `remainder`)."""
    return remainder(arg_0=arg_0, arg_1=arg_1)


def gcd(arg_0: float, arg_1: float) -> Record:
    """calculate the Greatest Common Divisor (GCD) of two (integral) numbers."""
    return {"result": math.gcd(_int_like(arg_0, "gcd"), _int_like(arg_1, "gcd"))}


def lcm(arg_0: float, arg_1: float) -> Record:
    """Calculate the least common multiple of two (integral) numbers."""
    return {"result": math.lcm(_int_like(arg_0, "lcm"), _int_like(arg_1, "lcm"))}


def factorial(arg_0: int) -> Record:
    """Calculate the factorial of a non-negative integer: result = arg_0!."""
    return {"result": math.factorial(_int_like(arg_0, "factorial"))}


def choose(arg_0: int, arg_1: int) -> Record:
    """Number of ways to choose r (arg_1) items from n (arg_0) items, no repetition, no order."""
    return {"result": math.comb(_int_like(arg_0, "choose"), _int_like(arg_1, "choose"))}


def floor(arg_0: float) -> Record:
    """Return the largest integer less than or equal to x (arg_0)."""
    return {"result": math.floor(_num(arg_0))}


def min_number(arg_0: list[float]) -> Record:
    """Find the minimum value among the given numbers (arg_0 is a LIST of numbers)."""
    return {"result": min(_num(x) for x in arg_0)}


def negate_prob(arg_0: float) -> Record:
    """Probability of an event not occurring: result = 1 - arg_0."""
    return {"result": 1 - _num(arg_0)}


def speed(arg_0: float, arg_1: float) -> Record:
    """Calculate speed given distance (arg_0) and time (arg_1): result = distance / time."""
    return {"result": _num(arg_0) / _num(arg_1)}


def rectangle_perimeter(arg_0: float, arg_1: float) -> Record:
    """Perimeter of a rectangle of length arg_0 and width arg_1: 2 * (length + width)."""
    return {"result": 2 * (_num(arg_0) + _num(arg_1))}


def diagonal(arg_0: float, arg_1: float) -> Record:
    """Length of the diagonal of a rectangle (length arg_0, width arg_1): sqrt(l^2 + w^2)."""
    return {"result": math.hypot(_num(arg_0), _num(arg_1))}


def square_edge_by_perimeter(arg_0: float) -> Record:
    """Edge length of a square given its perimeter: perimeter / 4."""
    return {"result": _num(arg_0) / 4}


def square_edge_by_area(arg_0: float) -> Record:
    """Edge length of a square given its area: sqrt(area)."""
    return {"result": math.sqrt(_num(arg_0))}


def circumface(arg_0: float) -> Record:
    """Circumference of a circle of radius arg_0: 2 * pi * r (NESTFUL spells it 'circumface')."""
    return {"result": 2 * math.pi * _num(arg_0)}


def volume_cube(arg_0: float) -> Record:
    """Volume of a cube with side arg_0: side ** 3."""
    return {"result": _num(arg_0) ** 3}


def surface_cube(arg_0: float) -> Record:
    """Surface area of a cube with side arg_0: 6 * side ** 2."""
    return {"result": 6 * _num(arg_0) ** 2}


def volume_sphere(arg_0: float) -> Record:
    """Volume of a sphere of radius arg_0: 4/3 * pi * r ** 3."""
    return {"result": 4 / 3 * math.pi * _num(arg_0) ** 3}


def surface_sphere(arg_0: float) -> Record:
    """Surface area of a sphere of radius arg_0: 4 * pi * r ** 2."""
    return {"result": 4 * math.pi * _num(arg_0) ** 2}


def volume_cylinder(arg_0: float, arg_1: float) -> Record:
    """Volume of a cylinder (base radius arg_0, height arg_1): pi * r ** 2 * h."""
    return {"result": math.pi * _num(arg_0) ** 2 * _num(arg_1)}


def volume_cone(arg_0: float, arg_1: float) -> Record:
    """Volume of a cone (base radius arg_0, height arg_1): pi * r ** 2 * h / 3."""
    return {"result": math.pi * _num(arg_0) ** 2 * _num(arg_1) / 3}


# =========================================================================================
# Code-derived functions (named parameters; output field `output_0`).
# =========================================================================================


def find_kth_largest(nums: list[int], k: int) -> Record:
    """Finds the kth largest element in a list of integers; None if k is not valid.

    Duplicates count separately (the k-th element of the list sorted in descending order).
    """
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > len(nums):
        return {"output_0": None}
    return {"output_0": sorted(nums, reverse=True)[k - 1]}


def convert_to_float_or_string(input_string: Any) -> Record:
    """Converts a string to a float if possible, or returns the original string otherwise.

    The gold sequence passes an *int* (the output of ``find_kth_largest``) here; a number is
    converted with ``float()`` as well (``3`` -> ``3.0``). Anything ``float()`` rejects is
    returned unchanged.
    """
    try:
        return {"output_0": float(input_string)}
    except (TypeError, ValueError):
        return {"output_0": input_string}


def unique_common_values(list1: list[int], list2: list[int]) -> Record:
    """Returns a list of unique common values that occur in both input lists.

    Order (unspecified upstream): first occurrence in ``list1``.
    """
    other = set(list2)
    seen: set[Any] = set()
    out: list[Any] = []
    for v in list1:
        if v in other and v not in seen:
            seen.add(v)
            out.append(v)
    return {"output_0": out}


def swap_by_index(values: list[int], i: int, j: int) -> Record:
    """Swaps the values at index i and j in the given list of integers (returns a new list)."""
    out = list(values)
    out[i], out[j] = out[j], out[i]
    return {"output_0": out}


def make_json_string(dictionary: dict[str, Any]) -> Record:
    """Converts a dictionary to a JSON string (``json.dumps`` defaults: ``", "`` and ``": "``)."""
    return {"output_0": json.dumps(dictionary)}


def tokenize_sentence(sentence: str) -> Record:
    """Tokenizes a sentence by removing punctuation and converting words to lowercase.

    Reading that reproduces the NESTFUL gold answer: "punctuation" means the *sentence*
    punctuation marks ``. , ; ! ?``; they are deleted, the text is lowercased and split on
    whitespace (empty tokens dropped). Every other symbol is kept. Evidence from the gold
    (``'{"a": 1, "b": 2, "c": 3}'`` -> ``['{"a":', '1', '"b":', '2', '"c":', '3}']``): commas
    are removed, while ``:``, ``"``, ``{`` and ``}`` survive, so neither "strip all of
    ``string.punctuation``" nor "drop punctuation-only tokens" fits.
    """
    cleaned = sentence.translate(_SENTENCE_PUNCT).lower()
    return {"output_0": cleaned.split()}


_SENTENCE_PUNCT = str.maketrans("", "", ".,;!?")


def non_whitespace_substrings(input_str: str) -> Record:
    """Returns a list of non-empty substrings that do not contain any whitespace characters."""
    return {"output_0": input_str.split()}


def count_words_from_sentences(sentences: list[str]) -> Record:
    """Counts the words in a list of sentences: {word: count}, words split on whitespace.

    Case and punctuation are preserved (gold: ``{"Hello": 1, "world!": 1, ...}``); keys are in
    first-seen order.
    """
    counts: dict[str, int] = {}
    for s in sentences:
        for w in s.split():
            counts[w] = counts.get(w, 0) + 1
    return {"output_0": counts}


def count_total_characters(d: dict[str, list[str]]) -> Record:
    """Counts the total number of characters present in all lists in the dictionary."""
    return {"output_0": sum(len(s) for lst in d.values() for s in lst)}


def compute_degree(coefficients: list[float]) -> Record:
    """Degree of a polynomial given its coefficients in decreasing order of powers.

    Leading zeros are ignored; the zero polynomial (e.g. ``[0]``) has degree 0.
    """
    coeffs = list(coefficients)
    while len(coeffs) > 1 and coeffs[0] == 0:
        coeffs.pop(0)
    return {"output_0": max(len(coeffs) - 1, 0)}


def verify_boolean(s: str) -> Record:
    """Determines whether a string represents a boolean value ('true'/'false', any case)."""
    return {"output_0": isinstance(s, str) and s.strip().lower() in ("true", "false")}


def traverse_diagonal(matrix: list[list[int]]) -> Record:
    """Returns the diagonal elements of a square matrix, top-left to bottom-right."""
    return {"output_0": [row[i] for i, row in enumerate(matrix)]}


def parse_list_of_numbers(string: str) -> Record:
    """Parses a string of comma-separated numbers into a list of floats."""
    return {"output_0": [float(p) for p in string.split(",") if p.strip()]}


def add_if_unique(L: list[int], x: int) -> Record:
    """Adds `x` to the list `L` iff `x` does not already belong to `L` (returns a new list)."""
    return {"output_0": list(L) if x in L else [*L, x]}


def generate_lr_sequence(initial_lr: float, decay_factor: float, num_epochs: int) -> Record:
    """Learning rates decaying exponentially over `num_epochs` epochs: lr_e = lr0 * f ** e."""
    return {"output_0": [initial_lr * decay_factor**e for e in range(num_epochs)]}


def count_runs(numbers: list[int]) -> Record:
    """Contiguous runs of the same number: list of (start, end, count), end inclusive."""
    runs: list[tuple[int, int, int]] = []
    start = 0
    for idx in range(1, len(numbers) + 1):
        if idx == len(numbers) or numbers[idx] != numbers[start]:
            runs.append((start, idx - 1, idx - start))
            start = idx
    return {"output_0": runs}


def escape_single_quotes_and_backslash(string: str) -> Record:
    """Escapes single quotes and backslashes in a string (backslashes first)."""
    return {"output_0": string.replace("\\", "\\\\").replace("'", "\\'")}


def compute_vector_distance(vector1: list[float], vector2: list[float]) -> Record:
    """Euclidean distance between two 1-dimensional vectors."""
    return {"output_0": math.dist(vector1, vector2)}


def shorten_list(lst: list[int]) -> Record:
    """Removes duplicates from a list of integers; unique values (first occurrences) reversed."""
    return {"output_0": list(dict.fromkeys(lst))[::-1]}


def validate_alpha_underscore_string(s: str | None) -> Record:
    """True if the string consists only of ASCII letters and underscores (non-empty)."""
    return {"output_0": s is not None and re.fullmatch(r"[A-Za-z_]+", s) is not None}


def escape_special_characters(string: str) -> Record:
    """Escapes all special characters in a string using Python's escaping rules.

    ``'a\\nb'`` -> ``'a\\\\nb'`` (the ``unicode_escape`` codec, as a str).
    """
    return {"output_0": string.encode("unicode_escape").decode("ascii")}


def list_length(data: list[Any]) -> Record:
    """Calculates the length of a list without using the built-in `len()` function."""
    n = 0
    for _ in data:
        n += 1
    return {"output_0": n}


def get_top(arr: list[list[Any]], n: int) -> Record:
    """Dict of the top `n` largest amounts from (id, amount) pairs, in descending order."""
    top = sorted(arr, key=lambda p: p[1], reverse=True)[:n]
    return {"output_0": {p[0]: p[1] for p in top}}


def check_dates_for_increase_by_one_day(date_strings: list[str]) -> Record:
    """True if consecutive dates ('%Y-%m-%d %H:%M:%S') differ by no more than one day."""
    ds = [datetime.strptime(s, "%Y-%m-%d %H:%M:%S") for s in date_strings]
    return {"output_0": all(abs((b - a).total_seconds()) <= 86400 for a, b in pairwise(ds))}


def convert_filter(dict_input: dict[str, Any]) -> Record:
    """(key, value) tuples of a dict, without the tuples whose key is "foo" and value a list."""
    return {
        "output_0": [
            (k, v) for k, v in dict_input.items() if not (k == "foo" and isinstance(v, list))
        ]
    }


def extract_tags_and_values(xml_string: str) -> Record:
    """Parses an XML string; {tag: text} for every element (stripped text, '' when empty)."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(xml_string)
    return {"output_0": {el.tag: (el.text or "").strip() for el in root.iter()}}


def partition_comments(comments: list[str]) -> Record:
    """Maps user_id to its list of comment_texts, from 'user_id|comment_id|comment_text'."""
    out: dict[str, list[str]] = {}
    for c in comments:
        user_id, _comment_id, text = c.split("|", 2)
        out.setdefault(user_id, []).append(text)
    return {"output_0": out}


def remove_subsequence(string: str, start_end: list[str]) -> Record:
    """Removes every subsequence between the two characters (delimiters included)."""
    a, b = start_end
    return {"output_0": re.sub(re.escape(a) + ".*?" + re.escape(b), "", string, flags=re.S)}


def multiply_max_k_vector(nums: list[int], k: int) -> Record:
    """Maximum product of two elements of `nums` that are exactly `k` indices apart."""
    prods = [nums[i] * nums[i + k] for i in range(len(nums) - k)]
    return {"output_0": max(prods) if prods else None}


def remove_characters_by_regex(string: str, regex: str) -> Record:
    """Removes the characters of a string that match the regular expression `regex`."""
    return {"output_0": re.sub(regex, "", string)}


def compute_spearman_correlation(array1: list[float], array2: list[float]) -> Record:
    """Spearman's rank correlation coefficient of two equal-length arrays (average ranks)."""

    def ranks(xs: list[float]) -> list[float]:
        order = sorted(range(len(xs)), key=lambda i: xs[i])
        r = [0.0] * len(xs)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
                j += 1
            for m in range(i, j + 1):
                r[order[m]] = (i + j) / 2 + 1
            i = j + 1
        return r

    r1, r2 = ranks(list(array1)), ranks(list(array2))
    m1, m2 = sum(r1) / len(r1), sum(r2) / len(r2)
    cov = sum((a - m1) * (b - m2) for a, b in zip(r1, r2, strict=True))
    var = math.sqrt(sum((a - m1) ** 2 for a in r1) * sum((b - m2) ** 2 for b in r2))
    return {"output_0": cov / var}


# =========================================================================================
# Registry and the NESTFUL answer comparison.
# =========================================================================================

_FUNCS: list[Callable[..., Record]] = [
    # math primitives
    add, subtract, multiply, divide, inverse, power, log, remainder, reminder, gcd, lcm,
    factorial, choose, floor, min_number, negate_prob, speed, rectangle_perimeter, diagonal,
    square_edge_by_perimeter, square_edge_by_area, circumface, volume_cube, surface_cube,
    volume_sphere, surface_sphere, volume_cylinder, volume_cone,
    # code-derived functions used by the gold sequences
    find_kth_largest, convert_to_float_or_string, unique_common_values, swap_by_index,
    make_json_string, tokenize_sentence, non_whitespace_substrings, count_words_from_sentences,
    # other documented, deterministic code-derived functions
    count_total_characters, compute_degree, verify_boolean, traverse_diagonal,
    parse_list_of_numbers, add_if_unique, generate_lr_sequence, count_runs,
    escape_single_quotes_and_backslash, compute_vector_distance, shorten_list,
    validate_alpha_underscore_string, escape_special_characters, list_length, get_top,
    check_dates_for_increase_by_one_day, convert_filter, extract_tags_and_values,
    partition_comments, remove_subsequence, multiply_max_k_vector, remove_characters_by_regex,
    compute_spearman_correlation,
]  # fmt: skip

TOOLS: dict[str, Callable[..., Record]] = {f"nestful.{f.__name__}": f for f in _FUNCS}


def _listit(x: Any) -> Any:
    """Tuples (recursively) to lists, so a tuple result compares equal to a JSON array."""
    return [_listit(v) for v in x] if isinstance(x, list | tuple) else x


def answers_match(pred: Any, gold: Any) -> bool:
    """NESTFUL's win-rate comparison of a final answer with the gold answer.

    Rule (IBM/NESTFUL ``src/scorer.py``, ``calculate_win_score``): when BOTH the gold and the
    predicted answer are Python floats, the prediction is rounded to as many decimal places as
    the gold answer has in ``str(gold)`` (``40.0`` -> 1 place, ``0.6428571428571429`` -> 16
    places) and then compared with ``==``. Otherwise plain ``==`` (so ``3.0 == 3`` and
    ``40 == 40.0`` hold), plus one leniency: a tuple prediction equals a list gold after
    converting tuples to lists recursively.
    """
    if type(gold) is float and type(pred) is float:
        text = str(gold)
        decimals = len(text.split(".")[1]) if "." in text and "e" not in text else None
        if decimals is not None:
            pred = round(pred, decimals)
    if pred == gold:
        return True
    return isinstance(pred, tuple) and isinstance(gold, list) and _listit(pred) == gold
