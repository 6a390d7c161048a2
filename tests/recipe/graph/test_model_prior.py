"""The chat-model feasibility prior (edgedsl.recipe.graph.model_prior) against a fake endpoint on
127.0.0.1, over real stdlib tools (``dart``)."""

from __future__ import annotations

import asyncio
import importlib.resources
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from edgedsl.check import load_catalog
from edgedsl.core.catalog import Tool
from edgedsl.core.types import CodeType, FieldType, ListType
from edgedsl.recipe.graph.candidate import Candidate, Prior, Scorer
from edgedsl.recipe.graph.model import Binding, Port, ToolNode
from edgedsl.recipe.graph.model_prior import (
    FALLBACK_SCORE,
    ChatModelScorer,
    PriorReply,
    PriorTemplateError,
    load_prior_template,
    render_prior_prompt,
    vet_reply,
)
from edgedsl.recipe.llm import DEFAULT_KEY_ENV, LLMClient, LLMConfig, LLMError
from tests.recipe.graph.fake_llm import FakeLLM, Seen, fail, ok

KEY = "sk-FAKE-prior-key-42-DO-NOT-LEAK"

# ----------------------------------------------------------------------------- real tools


def _code(t: FieldType) -> str | None:
    while isinstance(t, ListType):
        t = t.item
    return t.name if isinstance(t, CodeType) else None


def node(tool: Tool) -> ToolNode:
    """A graph node built by hand from a catalog tool (types spelled as the language does)."""
    return ToolNode(
        name=tool.qualname, domain=tool.platform, doc=tool.doc,
        params=[Port(name=p.name, type=str(p.type), code=_code(p.type), optional=p.optional)
                for p in tool.params],
        fields=[Port(name=f.name, type=str(f.type), code=_code(f.type), optional=f.optional)
                for f in tool.record.fields])


@pytest.fixture(scope="module")
def dart() -> dict[str, ToolNode]:
    catalog = load_catalog(["dart"])
    return {t.qualname: node(t) for t in catalog.tools() if t.platform == "dart"}


def candidate(dart: dict[str, ToolNode], source: str, target: str,
              *pairs: tuple[str, str], similarity: float = 0.8125) -> Candidate:
    bindings = tuple(Binding(field=f, param=p, why="same code type") for f, p in pairs)
    return Candidate(source=dart[f"dart.{source}"], target=dart[f"dart.{target}"],
                     bindings=bindings, similarity=similarity, same_domain=True)


@pytest.fixture
def accounts(dart: dict[str, ToolNode]) -> Candidate:
    """dart.disclosures → dart.single_accounts, proposed corp_code → corp_code."""
    return candidate(dart, "disclosures", "single_accounts", ("corp_code", "corp_code"))


# ----------------------------------------------------------------------------- the fake


@pytest.fixture
def url(llm_served: tuple[FakeLLM, str]) -> str:
    return llm_served[1]


def scorer(url: str, **kw: Any) -> ChatModelScorer:
    cfg_kw = {k: kw.pop(k) for k in ("max_concurrency", "retries") if k in kw}
    cfg = LLMConfig(base_url=url, model="fake-model", backoff=0.001, max_backoff=0.01, **cfg_kw)
    return ChatModelScorer(LLMClient(cfg, environ={DEFAULT_KEY_ENV: KEY}, seed=0), **kw)


def run(s: ChatModelScorer, cands: Sequence[Candidate]) -> list[Prior]:
    async def go() -> list[Prior]:
        async with s.client:
            return await s.score_many(cands)
    return asyncio.run(go())


# ----------------------------------------------------------------------------- the prompt


def test_packaged_template_renders_a_real_tool_pair(accounts: Candidate) -> None:
    templates = importlib.resources.files("edgedsl.recipe.graph") / "templates"
    assert (templates / "prior.jinja2").is_file()
    prompt = render_prior_prompt(accounts)
    assert "## Source tool `dart.disclosures` (platform dart)" in prompt
    assert "## Target tool `dart.single_accounts` (platform dart)" in prompt
    assert accounts.source.doc in prompt and accounts.target.doc in prompt  # Korean docs
    assert "- `corp_code`: CorpCode (code type codes.CorpCode)" in prompt
    assert "- `stock_code`: StockCode (code type codes.StockCode), may be missing" in prompt
    assert "- `rcept_dt`: date" in prompt
    assert "- `corp_code`: CorpCode (code type codes.CorpCode), required" in prompt
    assert "- `reprt_code`: enum[11011, 11012, 11013, 11014], required" in prompt
    assert "- `corp_code` → `corp_code` (same code type)" in prompt
    assert "similarity of the two tools: 0.812" in prompt
    assert "no proposed binding fills: `bsns_year`, `reprt_code`." in prompt
    assert '{"score": <number from 0 to 1>, "bindings": [{"field"' in prompt
    assert "{{" not in prompt and "{%" not in prompt and "{#" not in prompt
    assert "\n\n\n" not in prompt
    # one port or binding per line, sections apart
    assert all(line.count("- `") == 1 for line in prompt.splitlines() if "- `" in line)
    assert "\n- `corp_name`: str\n- `corp_code`: CorpCode" in prompt
    assert "- `rm`: str, may be missing\n\n## Target tool" in prompt


def test_prompt_of_a_cross_domain_pair_without_bindings(dart: dict[str, ToolNode]) -> None:
    c = Candidate(source=dart["dart.corp_codes"], target=dart["dart.company"], bindings=(),
                  similarity=0.3, same_domain=False)
    prompt = render_prior_prompt(c)
    assert "(the tools belong to different platforms)" in prompt
    assert "## Proposed bindings" in prompt and "- (none)" in prompt
    assert "`corp_code`." in prompt  # the unbound required parameter


def test_user_template(tmp_path: Path, fake: FakeLLM, url: str, accounts: Candidate) -> None:
    path = tmp_path / "mine.jinja2"
    path.write_text("Pair {{ source.name }} -> {{ target.name }}; "
                    "{{ bindings | map(attribute='param') | join(',') }}; "
                    "{{ '%.2f' | format(similarity) }}", encoding="utf-8")
    fake.script(ok({"score": 0.4, "bindings": [{"field": "corp_code", "param": "corp_code"}]}))
    s = scorer(url, template=path)
    (prior,) = run(s, [accounts])
    assert prior.score == 0.4
    assert fake.requests[0].messages[1]["content"] == \
        "Pair dart.disclosures -> dart.single_accounts; corp_code; 0.81\n"


def test_broken_templates_fail_clearly(tmp_path: Path, accounts: Candidate) -> None:
    with pytest.raises(PriorTemplateError, match="cannot read prompt template"):
        load_prior_template(tmp_path / "missing.jinja2")
    bad = tmp_path / "bad.jinja2"
    bad.write_text("line one\n{% for x in %}\n", encoding="utf-8")
    with pytest.raises(PriorTemplateError, match=r"bad\.jinja2', line 2"):
        load_prior_template(bad)
    undefined = tmp_path / "undefined.jinja2"
    undefined.write_text("{{ source.name }} {{ sauce.name }}", encoding="utf-8")
    with pytest.raises(PriorTemplateError, match="'sauce' is undefined"):
        render_prior_prompt(accounts, load_prior_template(undefined))
    escape = tmp_path / "escape.jinja2"
    escape.write_text("{{ source.__class__.__mro__ }}", encoding="utf-8")
    with pytest.raises(PriorTemplateError, match="does not render"):
        render_prior_prompt(accounts, load_prior_template(escape))


# ----------------------------------------------------------------------------- scoring


def test_scorer_satisfies_the_protocol_and_scores(fake: FakeLLM, url: str,
                                                  accounts: Candidate) -> None:
    fake.script(ok({"score": 0.85, "bindings": [{"field": "corp_code", "param": "corp_code"}],
                    "defaults": {"bsns_year": [2023, 2022], "reprt_code": ["11011"]}}))
    s: Scorer = scorer(url)
    assert s.name == "model:fake-model"
    (prior,) = run(s, [accounts])  # type: ignore[arg-type]
    assert prior == Prior(score=0.85, bindings=accounts.bindings,
                          defaults={"bsns_year": [2023, 2022], "reprt_code": ["11011"]},
                          scorer="model:fake-model")
    (seen,) = fake.requests
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.messages[0]["role"] == "system"
    assert "dart.disclosures" in seen.prompt and "dart.single_accounts" in seen.prompt
    assert seen.body["response_format"] == {"type": "json_object"}


def test_code_type_violations_are_rejected_and_repaired(fake: FakeLLM, url: str,
                                                        accounts: Candidate) -> None:
    fake.script(ok({"score": 0.7, "bindings": [
        {"field": "stock_code", "param": "corp_code"},   # StockCode into a CorpCode parameter
        {"field": "rcept_no", "param": "bsns_year"},     # fine: not a code-typed parameter
        {"field": "nope", "param": "reprt_code"},        # no such field
        {"field": "corp_code", "param": "nope"},         # no such parameter
        {"field": "corp_name", "param": "bsns_year"},    # bound twice
    ]}))
    s = scorer(url)
    (prior,) = run(s, [accounts])
    assert prior.score == 0.7 and prior.scorer == "model:fake-model"
    assert prior.bindings == (Binding(field="corp_code", param="corp_code", why="same code type"),
                              Binding(field="rcept_no", param="bsns_year", why="model"))
    r = s.report
    assert (r.scored, r.rejected_bindings, r.repaired_bindings, r.fallbacks) == (1, 4, 1, 0)
    text = "\n".join(r.notes)
    assert "stock_code → corp_code rejected: parameter `corp_code` has code type " \
           "codes.CorpCode, field `stock_code` has code type codes.StockCode" in text
    assert "the proposed binding corp_code → corp_code is used instead" in text
    assert "the source has no output field `nope`" in text
    assert "the target has no parameter `nope`" in text
    assert "parameter `bsns_year` is bound twice" in text
    assert all(n.startswith("dart.disclosures → dart.single_accounts: ") for n in r.notes)


def test_code_typed_param_from_a_plain_string_is_rejected(dart: dict[str, ToolNode]) -> None:
    c = candidate(dart, "disclosures", "company", ("corp_code", "corp_code"))
    reply = PriorReply.model_validate(
        {"score": 0.6, "bindings": [{"field": "corp_name", "param": "corp_code"}]})
    v = vet_reply(c, reply)
    assert v.bindings == c.bindings and v.rejected == 1 and v.repaired == 1
    assert "field `corp_name` is str" in v.notes[0]
    # without a proposal for the parameter there is nothing to repair from: the proposal stays
    bare = Candidate(source=c.source, target=c.target, bindings=(), similarity=0.1,
                     same_domain=True)
    v = vet_reply(bare, reply)
    assert v.bindings == () and v.rejected == 1 and v.repaired == 0


def test_reply_without_valid_bindings_keeps_the_proposal(accounts: Candidate) -> None:
    bindings: list[dict[str, str]] | None
    for bindings in (None, []):
        v = vet_reply(accounts, PriorReply.model_validate({"score": 0.2, "bindings": bindings}))
        assert v.bindings == accounts.bindings and v.rejected == 0
        assert "proposed bindings are kept" in v.notes[0]


def test_defaults_are_vetted(dart: dict[str, ToolNode], accounts: Candidate) -> None:
    reply = PriorReply.model_validate({"score": 0.5, "defaults": {
        "reprt_code": ["11011", 11014, "99999", "11011"],
        "bsns_year": 2023,                   # a scalar is taken as a one-value list
        "corp_code": ["00126380"],           # bound by the proposal
        "colour": ["red"],                   # no such parameter
    }})
    v = vet_reply(accounts, reply)
    assert v.defaults == {"reprt_code": ["11011", "11014"], "bsns_year": [2023]}
    assert v.dropped_defaults == 2
    notes = "\n".join(v.notes)
    assert "`corp_code` dropped: parameter `corp_code` is bound" in notes
    assert "`colour` dropped: the target has no parameter `colour`" in notes
    assert "defaults of `reprt_code`: 2 value(s)" in notes

    rights = candidate(dart, "disclosures", "rights_offerings", ("corp_code", "corp_code"))
    v = vet_reply(rights, PriorReply.model_validate({"score": 0.5, "defaults": {
        "bgn_de": ["20240101", "2024-02-30", "yesterday"], "end_de": ["2024-12-31"]}}))
    assert v.defaults == {"bgn_de": ["2024-01-01"], "end_de": ["2024-12-31"]}
    v = vet_reply(rights, PriorReply.model_validate({"score": 0.5, "defaults": {
        "bgn_de": ["soon"]}}))
    assert v.defaults == {} and "no value of type date" in v.notes[-1]

    listing = candidate(dart, "company", "disclosures", ("corp_code", "corp_code"))
    v = vet_reply(listing, PriorReply.model_validate({"score": 0.5, "defaults": {
        "bgn_de": ["2024-01-01"]}}))
    assert v.defaults == {} and "is optional" in v.notes[-1]


def test_schema_invalid_reply_is_retried(fake: FakeLLM, url: str, accounts: Candidate) -> None:
    fake.script(ok({"score": 2, "bindings": []}),
                ok('```json\n{"score": 0.3, "bindings": [{"field": "corp_code"}]}\n```'),
                ok({"score": 0.3}))
    s = scorer(url)
    (prior,) = run(s, [accounts])
    assert prior.score == 0.3 and prior.scorer == "model:fake-model"
    assert prior.bindings == accounts.bindings  # no "bindings" key: the proposal is kept
    fed = [r.messages[-1]["content"] for r in fake.requests[1:]]
    assert "score: Input should be less than or equal to 1" in fed[0]
    assert "bindings.0.param: Field required" in fed[1]
    assert s.report.usage.malformed == 2 and s.report.usage.requests == 3
    assert s.report.fallbacks == 0


def test_fallback_after_repeated_malformed_replies(fake: FakeLLM, url: str,
                                                   accounts: Candidate,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    fake.script(ok("I cannot judge this."), ok("{'score': 0.5}"), ok('{"score": "high"}'))
    s = scorer(url)
    (prior,) = run(s, [accounts])
    assert prior == Prior(score=FALLBACK_SCORE, bindings=accounts.bindings, defaults={},
                          scorer="model:fake-model/fallback")
    assert s.report.fallbacks == 1 and s.report.scored == 1
    assert s.report.usage.failures == 1 and s.report.usage.malformed == 3
    assert "fallback score 0.5" in s.report.notes[0]
    assert "neutral prior" in caplog.text and KEY not in caplog.text

    fake.script(ok("nope"), ok("nope"), ok("nope"))
    strict = scorer(url, strict=True)
    with pytest.raises(LLMError) as info:
        run(strict, [accounts])
    assert info.value.kind == "malformed" and KEY not in str(info.value)


def test_endpoint_failure_raises_instead_of_falling_back(fake: FakeLLM, url: str,
                                                         accounts: Candidate) -> None:
    fake.handler = lambda seen: fail(503, f"down {seen.headers.get('authorization')}")
    s = scorer(url, retries=1)
    with pytest.raises(LLMError) as info:
        run(s, [accounts] * 4)
    assert info.value.kind == "transport" and KEY not in str(info.value)
    assert s.report.fallbacks == 0 and s.report.usage.failures >= 1
    fake.reset()
    fake.handler = lambda seen: fail(401, "bad key")
    with pytest.raises(LLMError) as info:
        run(scorer(url), [accounts])
    assert info.value.kind == "refused" and "EDGEDSL_LLM_KEY" in str(info.value)


def _by_target(seen: Seen) -> Any:
    m = re.search(r"## Target tool `dart\.(\w+)`", seen.prompt)
    assert m is not None
    score = {"company": 0.9, "single_accounts": 0.6, "dividends": 0.3}.get(m.group(1), 0.1)
    return ok({"score": score, "bindings": [{"field": "corp_code", "param": "corp_code"}]})


def test_many_candidates_in_order_under_the_cap(fake: FakeLLM, url: str,
                                               dart: dict[str, ToolNode]) -> None:
    targets = ["company", "single_accounts", "dividends", "executives"] * 5
    cands = [candidate(dart, "disclosures", t, ("corp_code", "corp_code")) for t in targets]
    fake.handler = _by_target
    fake.hold_until = 2
    s = scorer(url, max_concurrency=2)
    priors = run(s, cands)
    want = {"company": 0.9, "single_accounts": 0.6, "dividends": 0.3, "executives": 0.1}
    assert [p.score for p in priors] == [want[t] for t in targets]
    assert all(p.bindings == c.bindings for p, c in zip(priors, cands, strict=True))
    assert fake.max_in_flight == 2
    assert s.report.scored == 20 and s.report.usage.requests == 20
    assert s.report.to_json()["usage"] == s.report.usage.to_json()
    assert run(s, []) == []
