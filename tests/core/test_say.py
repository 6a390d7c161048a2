"""The ``say`` template's limits: time, reply length, operator sizes and memory. Each template
past a limit fails the run with R508 naming the limit; an ordinary reply renders as before."""

from __future__ import annotations

import sys
from typing import Any

import pytest

import edgedsl
from edgedsl.core.say import SayLimitError, render_say
from edgedsl.runtime.executor import run
from edgedsl.runtime.python_backend import PythonBackend

PROGRAM = """
platform p {{
  record R {{
    a: int
    name: str
  }}

  tool t (q: str) -> [R]
}}

trajectory x "q" {{
  r = p.t(q: "x")
  answer {{ n: count(r), names: r.name }}
  say {say}
}}
"""

TOOLS = {"p.t": lambda **_: [{"a": 1, "name": "가"}, {"a": 2, "name": "나"}]}


def say(template: str) -> Any:
    text = '"' + template.replace("\\", "\\\\").replace('"', '\\"') + '"'
    plan = edgedsl.compile(PROGRAM.format(say=text))
    return run(plan, "x", PythonBackend(TOOLS))


def test_an_ordinary_reply_renders() -> None:
    res = say("{{ n }}건: {% for v in names %}{{ v }}{% if not loop.last %}, {% endif %}"
              "{% endfor %}")
    assert res.ok and res.say == "2건: 가, 나"


LIMITED = {
    "nested loops": ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}"
                     "{% endfor %}", "ran past 2 s"),
    # 200,000 characters: twice the limit, small enough that the 2 s limit cannot fire first
    # under load (range(100000) made 10 M and failed at load 20+ on the time limit)
    # a few long pieces, not 200,000 tiny ones: under load the traced loop ran into the time
    # limit before it reached the length limit
    "a long reply": ("{% for i in range(200) %}{{ 'x' * 1000 }}{% endfor %}",
                     "longer than 100,000 characters"),
    "a repeated text": ("{{ 'x' * 1000000000 }}", "repeating a text of 1 character"),
    "a repeated list": ("{{ ([1, 2] * 60000)|length }}", "repeating a list of 2 items"),
    "a huge power": ("{{ 10 ** 100000 }}", "an integer of more than 100,000 bits"),
    "a doubled text": ("{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(40) %}"
                       "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}",
                       "more than 256 MiB"),
    "a doubled text by +": ("{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(40) %}"
                            "{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s|length }}",
                            "joining a text of 65,536 characters"),
    "a wide centre": ("{{ 'x'|center(1000000000) }}", "`center` wider than 100,000"),
    "a wide indent": ("{{ 'a\\nb'|indent(width=60000) }}", "`indent` wider than 100,000"),
    "a wide % field": ("{{ '%0999999999d' % 1 }}", "a format field wider than"),
    "a wide format field": ("{{ '%.99999999f'|format(1) }}", "a format field wider than"),
    "a widening replace": ("{{ ('x' * 1000)|replace('x', 'y' * 1000) }}",
                           "`replace` would make more than"),
}


@pytest.mark.parametrize("template", [
    "{{ 10 ** 10 ** 10 ** 10 }}",
    "{{ 'x'|center(1000000000) }}",
    "{{ ('x' * 1000000000)|length }}",
    "{{ '%0999999999d' % 1 }}",
])
def test_checking_a_template_computes_nothing_of_it(template: str) -> None:
    # jinja2 folds constant expressions when it compiles; the checker's parse must not
    text = '"' + template.replace("\\", "\\\\").replace('"', '\\"') + '"'
    checked = edgedsl.check(PROGRAM.format(say=text))
    assert not [d for d in checked.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("case", sorted(LIMITED))
def test_a_template_past_a_limit_is_r508(case: str) -> None:
    if case == "a doubled text" and sys.platform != "linux":
        pytest.skip("the memory limit reads /proc/self/statm")
    template, message = LIMITED[case]
    if case == "a doubled text":
        # doubling to 256 MiB takes a while on a loaded machine: the time limit must not fire first
        with pytest.raises(SayLimitError, match=message):
            render_say(template, {}, seconds=120)
        return
    res = say(template)
    assert not res.ok and res.say is None
    (d,) = res.diagnostics
    assert d.code == "R508" and "went past its limits" in d.message
    assert message in d.message


def test_limits_are_parameters() -> None:
    with pytest.raises(SayLimitError, match="longer than 5 characters"):
        render_say("{{ x }}", {"x": "123456"}, max_chars=5)
    with pytest.raises(SayLimitError, match=r"ran past 0\.05 s"):
        render_say("{% for i in range(100000) %}{% for j in range(1000) %}{% endfor %}"
                   "{% endfor %}", {}, seconds=0.05)


def test_rendering_restores_the_trace_function() -> None:
    def tracer(*_: Any) -> None:
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        assert render_say("{{ 1 + 1 }}", {}) == "2"
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(previous)
