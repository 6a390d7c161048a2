"""The registry of every diagnostic code edgedsl emits, with a title and a long explanation.

Families: ``E0xx`` syntax (parse, build), ``E1xx`` names and catalogs, ``E2xx`` types and
reducers, ``E3xx`` the dataflow graph and statements, ``E4xx`` plans, ``R5xx`` run time, ``W…``
warnings. ``edgedsl explain CODE`` prints :func:`explain`. A test checks that every code used in
the sources is registered here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """A code's one-line title and its explanation (markdown-ish, with an example and the fix)."""

    title: str
    explanation: str


def _c(title: str, explanation: str) -> CodeInfo:
    return CodeInfo(title, explanation.strip("\n"))


CODES: dict[str, CodeInfo] = {
    # ------------------------------------------------------------ E0xx: syntax
    "E000": _c(
        "cannot read a file",
        """
A file could not be read: it does not exist any more, is not readable, or is not UTF-8.
edgedsl files are UTF-8 text; a byte-order mark at the start is allowed and ignored. Every
command (`parse`, `check`, `fmt`, `compile`, `run`) reports a file that is not UTF-8 the same
way, at its first byte that is not, with exit code 1; a `use`d module that is not UTF-8 is
reported at the `use` and at the byte.

Fix: check the path and re-save the file as UTF-8.
""",
    ),
    "E001": _c(
        "unexpected character",
        """
The lexer met a character that starts no token, for example `@` or a stray `'`.

    corp = dart.corp_code(corp_name: '삼성전자')     # single quotes

Fix: strings use double quotes: `"삼성전자"`.
""",
    ),
    "E002": _c(
        "unexpected token",
        """
A token appeared where the grammar does not allow it. The help line lists what was expected.

    corp = dart.corp_code(corp_name "삼성전자")     # missing `:`

Fix: write what the help line expects at that place.
""",
    ),
    "E003": _c(
        "unexpected end of file",
        """
The file ended inside a construct, usually an unclosed `{`, `(` or `[`.

Fix: close the construct that is still open.
""",
    ),
    "E004": _c(
        "missing `,` between arguments",
        """
Arguments of a call are separated by commas.

    price = krx.stock_price(srtnCd: "005930" basDt: 2024-12-30)

Fix: `krx.stock_price(srtnCd: "005930", basDt: 2024-12-30)`.
""",
    ),
    "E005": _c(
        "a field reference needs a junction kind",
        """
An argument that takes an upstream field must say how the values are handed off: `seq` (exactly
one value) or `fan` (one call per value).

    filings = dart.disclosures(corp_code: corp.corp_code)

Fix: `dart.disclosures(corp_code: seq corp.corp_code)`.
""",
    ),
    "E006": _c(
        "reducers of a `drv` chain are separated by `|`",
        """
    latest = drv filings max rcept_dt

Fix: `latest = drv filings | max rcept_dt` (and `| where …` for every further step).
""",
    ),
    "E007": _c(
        "`pages` takes `all` or a whole number",
        """
    filings = dart.disclosures(corp_code: seq corp.corp_code) pages many

Fix: `pages all` or `pages 3`.
""",
    ),
    "E008": _c(
        "a trajectory needs a query string",
        """
Every trajectory carries its natural-language query right after its name.

    trajectory latest { … }

Fix: `trajectory latest "가장 최근 공시는?" { … }`.
""",
    ),
    "E009": _c(
        "a fan bound is a whole number",
        """
    prices = krx.stock_price(srtnCd: fan(2.5) corp.stock_code)

Fix: `fan(2)` or `fan(3)`.
""",
    ),
    "E010": _c(
        "not a calendar date",
        """
A date literal must name a real day.

    filings = dart.disclosures(bgn_de: 2024-02-30)

Fix: `2024-02-29`.
""",
    ),
    "E011": _c(
        "expression nested too deeply",
        """
A program nests at most 128 levels of syntax (about 120 nested parentheses, unary operators or
`else if`s, or 60 nested `if` blocks or object literals): every pass of the compiler walks the
program by recursion, and the limit keeps it far from Python's recursion limit. The diagnostic
points at the first construct past the limit.

Fix: split it over several bindings or answer fields.
""",
    ),
    "E012": _c(
        "duplicate key in an object literal",
        """
    call = tools.make_json(dictionary: {"a": 1, "a": 2})

Fix: give every key once.
""",
    ),
    "E013": _c(
        "invalid escape in a string",
        """
A `\\uD800`–`\\uDFFF` escape must form a surrogate pair; a lone surrogate is not a character.

Fix: write the character itself, or a complete pair.
""",
    ),
    "E014": _c(
        "number too large",
        """
A number literal does not fit a 64-bit float.

Fix: write a smaller number.
""",
    ),
    "E015": _c(
        "unclosed bracket",
        """
A `(`, `[` or `{` opened on an earlier line was never closed: the next line starts a new
statement or declaration (or the file ends) while it is still open. The diagnostic points at
the bracket, and at the place where the parser gave up.

    company = dart.company(corp_code: seq corp.corp_code
    answer company.corp_name

Fix: close it: `dart.company(corp_code: seq corp.corp_code)`.
""",
    ),
    "E016": _c(
        "a list of references outside a call's argument",
        """
A list may hold references (`seq x.f`) only when it is a call's argument: each reference hands
one value to the call, which is given the list of them. A list in a `parallel` header, a
`compare … over p in [...]` list, a `run { … }` setting, an object literal, another list or an
expression holds literals only.

    pv = parallel(ids: [seq a.item_id]) { … }

Fix: give the list to the call that needs it, `tool(ids: [seq a.item_id, seq b.item_id])`, or
write the values themselves.
""",
    ),
    # ------------------------------------------------------------ E1xx: names and catalogs
    "E101": _c(
        "invalid regular expression in a code type",
        """
The pattern of a code type is not one edgedsl can use. Code patterns are RE2 regular
expressions (matched in time linear in the text, never backtracking): no backreferences
(`\\1`, `(?P=name)`), no lookaround (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`), repetitions up to
`{1000}`. They must also read in Python's `re` (`edgedsl.testing` draws values from them), so
no `\\p{…}` classes or `\\C`, and hold at most 64 `(`. Note that `\\d` and `\\w` match ASCII
only and `$` matches only at the very end.

    type StockCode = code /^[0-9{6}$/
    type Twice = code /^([0-9])\\1$/

Fix: `type StockCode = code /^[0-9]{6}$/`; spell the repetition out (`/^(00|11|22|…)$/`).
""",
    ),
    "E102": _c(
        "a catalog number must be whole",
        """
Quotas and page-size limits count calls and records.

    quota 2.5 per day

Fix: `quota 20000 per day`, `size: numOfRows <= 100`.
""",
    ),
    "E103": _c(
        "unknown module",
        """
`use X` looks for `X.edge` in the directory of the file, then in the `--lib` directories, then
in the standard library, and found none.

    use dartt

Fix: correct the name (`use dart`), or pass the directory holding the module with `--lib DIR`.
""",
    ),
    "E104": _c(
        "`use` cycle",
        """
Modules form a cycle through their `use` declarations (`a` uses `b`, `b` uses `a`). Catalogs are
loaded once, in dependency order, so a cycle has no order.

Fix: move the declarations both need (often code types) into a third module that both use.
""",
    ),
    "E105": _c(
        "name declared twice",
        """
A platform, tool, record, type, record field, tool parameter or enum member is declared twice
in the same scope, or a type takes the name of a built-in type.

    record Corp { corp_code: CorpCode  corp_code: str }

Fix: remove or rename one of the declarations.
""",
    ),
    "E106": _c(
        "unknown or unusable type",
        """
A type name is not a built-in type (`str int float num date bool json`), not a code type of the
platform, of the module or of a used module — or it is ambiguous, or it names a record.

    stock_code: StokCode

Fix: correct the name, add `use codes`, or qualify it (`codes.StockCode`). A field holding
nested data is `json`.
""",
    ),
    "E107": _c(
        "unknown record",
        """
A tool's `-> [Record]` names no record visible to the platform (records of the platform, of the
module's top level, or of the top level of a used module).

    tool corp_code GET "/corpCode.json" (corp_name: str) -> [Corps]

Fix: correct the name or declare the record.
""",
    ),
    "E108": _c(
        "invalid paging declaration",
        """
`paged(…)` takes the options `page` (required: the wire name of the page-number parameter),
`size` (the page-size parameter, optionally `<= N`) and `total` (the response field with the
total record count). Each is given once; only `size` takes a limit; a paged tool returns a list.

    paged(page: pageNo, rows: numOfRows)

Fix: `paged(page: pageNo, size: numOfRows <= 100, total: totalCount)`.
""",
    ),
    "E109": _c(
        "platform setting given twice",
        """
A platform has one `base`, one `envelope`, one `secret` and one `quota`.

Fix: keep one of them.
""",
    ),
    "E110": _c(
        "unknown or unimported platform",
        """
A call names a platform that no loaded module declares, or one declared only in a module this
file does not `use` directly.

    corp = dartt.corp_code(corp_name: "삼성전자")

Fix: correct the name, or add `use dart`.
""",
    ),
    "E111": _c(
        "unknown tool",
        """
The platform declares no tool of that name.

    corp = dart.corpcode(corp_name: "삼성전자")

Fix: `dart.corp_code(…)`; the help line suggests the closest tool.
""",
    ),
    "E112": _c(
        "unknown parameter",
        """
The tool has no parameter of that name. Paging parameters (page number, page size) are not
written by hand: the `pages` clause drives them.

    filings = dart.disclosures(corp: seq corp.corp_code)

Fix: `dart.disclosures(corp_code: seq corp.corp_code)`.
""",
    ),
    "E113": _c(
        "unknown name",
        """
A name used in a junction, a `drv`, a predicate or the answer is bound nowhere in the
trajectory.

    latest = drv filing | max rcept_dt

Fix: correct the name (`filings`); the help line suggests the closest bound name.
""",
    ),
    "E114": _c(
        "unknown field or branch",
        """
The relation has no field of that name (its record type does not declare it), or the parallel
group has no branch of that name.

    latest = drv filings | max rcept_date

Fix: `drv filings | max rcept_dt`; the help line suggests the closest field.
""",
    ),
    "E115": _c(
        "name bound twice",
        """
Every binding name is bound once in a trajectory (both branches of an `if` may bind the same
name). Rebinding would make references ambiguous.

    prices = krx.stock_price(srtnCd: "005930")
    prices = drv prices | max clpr

Fix: give the second relation its own name: `top = drv prices | max clpr`.
""",
    ),
    "E116": _c(
        "unknown function",
        """
Expressions know `round`, `count`, `sum`, `avg`, `min` and `max`.

    answer mean(trades.dealAmount)

Fix: `answer avg(trades.dealAmount)`.
""",
    ),
    "E117": _c(
        "not a shared name",
        """
A bare name as an argument value is only allowed inside a `parallel` group, for one of the
names in the group's header.

    price = krx.stock_price(srtnCd: code)

Fix: use a junction (`seq corp.stock_code`) or add `code` to the `parallel (…)` header.
""",
    ),
    "E118": _c(
        "given twice",
        """
An argument of a call, a shared name of a `parallel` header or a field of an `answer { … }`
block appears twice.

    corp = dart.corp_code(corp_name: "삼성전자", corp_name: "SK하이닉스")

Fix: keep one; to call once per value, use `compare … over corp_name in [...]`.
""",
    ),
    "E119": _c(
        "a relation where a value is needed, or the reverse",
        """
A bare relation name cannot be a value (`answer filings`); a field cannot be a relation
(`drv filings.rcept_dt`); a parallel group needs a branch (`day.meals`) and a field
(`day.meals.DDISH_NM`).

Fix: `answer count(filings)`, `drv filings | …`, `day.meals.DDISH_NM`.
""",
    ),
    "E120": _c(
        "reserved field name",
        """
A record field is a DuckDB column named after it, next to the runtime's own columns: `__row`
(input order), `__arm` (the fan or compare arm), `__raw` (the record as JSON), the store's
`__key` and `__seq`, and others it may add. Every field name beginning with `__` (two
underscores) is reserved for them, in any case.

    record Item {
      __key: str
    }

Fix: rename the field (`key`). One leading underscore is fine (`_key`).
""",
    ),
    "E121": _c(
        "field names that differ only in case",
        """
Two fields of one record whose names are equal up to ASCII case (`Name` and `name`) would be
the same DuckDB column: DuckDB's column names ignore ASCII case. Exact repetitions are `E105`.

    record Item {
      Name: str
      name: str
    }

Fix: declare one of them (or rename one).
""",
    ),
    "E122": _c(
        "a label that is not Korean text",
        """
A field's or parameter's label is the Korean noun a reader knows it by (the service's own column
name: `거래금액`, `접수일자`); synthesized questions, tool schemas and diagnostics use it instead
of the API name. It must be one line of text holding at least one Hangul syllable.

    record Trade {
      dealAmount: int "dealAmount"
    }

Fix: write the Korean label (`dealAmount: int "거래금액" unit "만원"`), or leave the label out.
""",
    ),
    "E123": _c(
        "a unit that cannot be a unit",
        """
A unit follows a label (`dealAmount: int "거래금액" unit "만원"`) and is free text — the
unit as the service states it (`원`, `백만원`, `만원`, `주`, `%`, `Kcal`, `㎡`, `초`, `원/㎡`) —
but it must be one line of at most 12 characters with no space at either end.

    record Trade {
      dealAmount: int "거래금액" unit ""
    }

Fix: write the unit as the service states it, or leave it out.
""",
    ),
    "E130": _c(
        "unknown run setting",
        """
A `run { … }` block states how the file's answers were produced; it knows three settings:
`seed` (the world backend's seed), `phi` (the fan-out budget φ of an unbounded `fan`) and
`max_pages` (the bound of `pages all`).

    run {
      sead: 1
    }

Fix: use one of the three names (`seed: 1`).
""",
    ),
    "E131": _c(
        "bad run setting value",
        """
Every run setting is a whole number: `seed` at least 0, `phi` and `max_pages` at least 1.

    run {
      phi: "five"
    }

Fix: write a whole number (`phi: 5`).
""",
    ),
    "E132": _c(
        "run setting given twice",
        """
A file has at most one `run` block, and each setting appears in it once: which of two values
holds would otherwise depend on the order they are read in.

    run {
      seed: 1
      seed: 2
    }

Fix: keep one.
""",
    ),
    # ------------------------------------------------------------ E2xx: types and reducers
    "E201": _c(
        "literal does not fit the parameter type",
        """
A literal argument (or a `compare` value) is not a value of the parameter's type. A date literal
is accepted for a `str` parameter (sent as `YYYY-MM-DD`); quoted numbers and dates are strings.

    price = krx.stock_price(basDt: "2024-12-30")

Fix: `basDt: 2024-12-30` (a date, no quotes).
""",
    ),
    "E202": _c(
        "code literal does not match its code type",
        """
A string passed to a code-typed parameter must match the code's pattern.

    filings = dart.disclosures(corp_code: "126380")      # CorpCode is 8 digits

Fix: `corp_code: "00126380"`.
""",
    ),
    "E203": _c(
        "code types differ",
        """
Code types are nominal: a `StockCode` is never a `CorpCode`, even though both are digit strings.
Passing one company identifier where another is expected is the commonest failure of public-API
chains, so it is an error before any call runs.

    corp = dart.corp_code(corp_name: "삼성전자")
    filings = dart.disclosures(corp_code: seq corp.stock_code)

Fix: pass a field of the right code type (`seq corp.corp_code`), or first call a tool that maps
one code to the other (the help line names one when the catalog has it).
""",
    ),
    "E204": _c(
        "reducer does not apply to the field's type",
        """
`max`/`min` and `top k`/`bottom k` need numbers or dates, `>=`/`<=` numbers, `after`/`before`
dates, `contains`/`starts_with` text (strings, enums, codes), `==`, `!=`, `in` and
`most_frequent` scalars (not lists or json).

    recent = drv filings | where report_nm after 2024-12-20

Fix: reduce a field of the right type: `where rcept_dt after 2024-12-20`.
""",
    ),
    "E205": _c(
        "pivot does not fit the field",
        """
The literal a `where` step compares with must suit the field: a number for `>=`/`<=`, a date for
`after`/`before`, a value of the field's type for `==`/`!=` (an enum member, a matching code …),
a non-empty list of such values for `in`, a quoted text for `contains`/`starts_with`. The `k` of
`top k f` / `bottom k f` is a whole number from 1 to 100.

    big = drv trades | where dealAmount >= "100000"
    best = drv prices | top 0 clpr

Fix: `where dealAmount >= 100000`; `top 3 clpr`.
""",
    ),
    "E206": _c(
        "field type does not fit the parameter type",
        """
A junction hands a field to a parameter of an incompatible type (for example a `str` to a `date`
or a `float` to an `int`).

Fix: pass another field, or correct the field's type in the catalog.
""",
    ),
    "E207": _c(
        "required parameters missing",
        """
Every parameter declared without `?` must be given.

    meals = neis.meals(SD_SCHUL_CODE: seq school.SD_SCHUL_CODE)

Fix: add the parameters the message lists.
""",
    ),
    "E208": _c(
        "fan bound outside 1 … φ",
        """
`fan(k)` runs up to k calls; k must be at least 1 and at most the fan-out budget φ (default 5).

    prices = krx.stock_price(srtnCd: fan(20) items.srtnCd)

Fix: narrow the field with a `drv` first, then `fan` (or `seq`).
""",
    ),
    "E209": _c(
        "more than one `fan` in a call",
        """
A call fans over at most one argument; two fans would run the cross product.

Fix: fan over one field and narrow the other with `drv` + `seq`.
""",
    ),
    "E210": _c(
        "`compare` needs 2 … φ values",
        """
    prices = compare krx.stock_price(basDt: 2024-12-30) over srtnCd in ["005930"]

Fix: give between 2 and φ values (a single value is a plain call).
""",
    ),
    "E211": _c(
        "`compare` over an unknown parameter",
        """
The parameter after `over` is not a parameter of the compared tool.

Fix: name one of the tool's parameters.
""",
    ),
    "E212": _c(
        "`compare` parameter also given in the call",
        """
    prices = compare krx.stock_price(srtnCd: "005930") over srtnCd in ["005930", "000660"]

Fix: remove the argument from the call; `compare` supplies it.
""",
    ),
    "E213": _c(
        "arithmetic on a non-number",
        """
`+ - * /`, unary `-` and `round` need numbers.

    answer latest.report_nm + 1

Fix: use numeric fields.
""",
    ),
    "E214": _c(
        "aggregate on an unsuitable field",
        """
`sum` and `avg` need a numeric field; `min` and `max` a numeric or date field.

    answer sum(filings.report_nm)

Fix: aggregate a numeric field, or use `count(filings)`.
""",
    ),
    "E215": _c(
        "wrong arguments to a function",
        """
`round(e, n)` takes a number and a whole-number literal of digits; `count(x)` a relation name;
`sum`, `avg`, `min`, `max` one field reference.

    answer count(filings.rcept_no)

Fix: `answer count(filings)`.
""",
    ),
    "E216": _c(
        "operands do not compare",
        """
A predicate compares values of different kinds (a date with a string, two different code
types), or orders booleans.

    if latest.rcept_dt > "2024-12-01" { … }

Fix: `latest.rcept_dt > 2024-12-01` (a date literal, no quotes).
""",
    ),
    "E217": _c(
        "name not bound on every path",
        """
A name bound in only one branch of an `if` (or with no `else`) is used after the `if`, or in
the other branch.

    if count(filings) > 10 { pick = drv filings | max rcept_dt }
    answer pick.report_nm

Fix: bind the name in both branches, or use it inside its branch.
""",
    ),
    "E218": _c(
        "branches bind a name to different types",
        """
A name bound in both branches of an `if` and used after it must denote the same record type in
both.

Fix: bind the same kind of relation in both branches (for example two `drv` of one relation).
""",
    ),
    "E219": _c(
        "`fan` not allowed here",
        """
A `parallel` header shares one value with all branches, and `compare` already calls once per
value: neither can fan.

Fix: use `seq` (after a `drv`) in the header; fan inside one branch; drop the fan in `compare`.
""",
    ),
    # ------------------------------------------------------------ E3xx: graph and statements
    "E220": _c(
        "a field compared as one value holds several",
        """
An `if` compares `x.f` (or computes with it), but `x` is known to hold several rows whenever it
holds any: every record of a tool that returns a list, one call per value of a `fan`, one per
value of a `compare`.

    found = neis.schoolInfo(SCHUL_NM: "중앙고")
    if found.SD_SCHUL_CODE == "7011348" { … }      # one value per school found

Fix: narrow the relation to one row first (`one = drv found | where … == …`, then `one.f`), or
compare an aggregate (`max(found.f)`) or a count (`count(found) > 1`). A `drv` may keep one row
or several; when it keeps several at run time the run fails with `R507`, naming the values.
""",
    ),
    "E301": _c(
        "dependency cycle",
        """
A binding uses itself, directly (`x = drv x | max f`) or through other bindings. A trajectory
is an acyclic dataflow.

Fix: give the reduced relation a new name: `top = drv x | max f`.
""",
    ),
    "E302": _c(
        "used before bound",
        """
A name is used above the line that binds it. Bindings are evaluated in dataflow order but must
be written before their uses.

Fix: move the binding above its first use.
""",
    ),
    "E303": _c(
        "`pages N` with N < 1",
        """
    filings = dart.disclosures(corp_code: seq corp.corp_code) pages 0

Fix: `pages 1` or more, or `pages all`.
""",
    ),
    "E304": _c(
        "`pages` on a tool that is not paged",
        """
Only tools declared with `paged(…)` read pages.

Fix: remove the `pages` clause.
""",
    ),
    "E305": _c(
        "answer given twice",
        """
A trajectory has one `answer`.

Fix: merge them into `answer { a: …, b: … }`.
""",
    ),
    "E306": _c(
        "`say` without an answer",
        """
A `say` template renders the answer; without one there is nothing to render.

Fix: add an `answer`.
""",
    ),
    "E307": _c(
        "`say` given twice",
        """
A trajectory has one `say` template.

Fix: keep one.
""",
    ),
    "E308": _c(
        "`answer` or `say` inside an `if`",
        """
The answer and its template are written once, at the top level of the trajectory. To answer
differently per branch, bind the same name in both branches and answer from it.

Fix: move the statement out of the `if`.
""",
    ),
    "E309": _c(
        "`say` template does not parse",
        """
The template is jinja2: `{{ name }}`, `{% if … %}`.

    say "{{ report 공시"

Fix: `say "{{ report }} 공시"`.
""",
    ),
    "E310": _c(
        "`say` template nested too deeply",
        """
A `say` template may nest 32 levels: the blocks open around a tag (`{% if %}`, `{% for %}`,
`{% with %}` …) plus, inside the tag, its brackets and operators — every `(`, `[`, `{`, `.`,
`|`, `+`, `not`, `if` … counts one level, and a comma or colon starts a new item at the same
level. jinja2 parses and compiles a template by recursion; the limit keeps it far from Python's
recursion limit. The runtime refuses such a template too (`R508`), from a plan file as well.

    say "{{ ((((((((((((((((((((((((((((((((( n ))))))))))))))))))))))))))))))))) }}"

Fix: compute the parts in the `answer`, or name intermediate values with
`{% set part = … %}`.
""",
    ),
    # ------------------------------------------------------------ E4xx: plans
    "E401": _c(
        "corrupt plan",
        """
A plan file could not be read back: it is not JSON, or does not follow the plan schema.

    $ edgedsl run plan.json          # plan.json truncated by an interrupted write

Fix: compile the trajectory again (`edgedsl compile FILE -o plan.json`).
""",
    ),
    "E402": _c(
        "plan version mismatch",
        """
The plan was written by a different plan-format version than this edgedsl reads. (A plan of
version 4, the one before, is still read: it is migrated on load.)

Fix: recompile the source with the installed edgedsl.
""",
    ),
    "E403": _c(
        "tool not runnable on this backend",
        """
A tool without an HTTP part (`METHOD "path"`) runs only on the `python` and `store` backends;
a tool the `python` backend has no callable for cannot run there either.

    tool slugify (text: str) -> [Slug]              # no GET "…": in-process only
    $ edgedsl run --backend http plan.json

Fix: choose a backend that can run the tool, or declare its HTTP endpoint.
""",
    ),
    # ------------------------------------------------------------ R5xx: run time
    "R501": _c(
        "junction saw no value",
        """
A `seq` or `fan` junction found 0 distinct values of its field (the upstream relation was empty
or the field was always null). Structural: not retried.

    corp = dart.corp_code(corp_name: "없는회사")      # returns no record
    filings = dart.disclosures(corp_code: seq corp.corp_code)

Fix: check the upstream call's arguments, or guard with `if exists(corp) { … }`.
""",
    ),
    "R502": _c(
        "junction saw more values than its bound",
        """
`seq` takes exactly 1 distinct value and `fan(k)` at most k; the field had more. The diagnostic
gives the observed cardinality.

    prices = krx.stock_price(basDt: 2024-12-30)           # ~2,800 stocks
    info = krx.stock_info(srtnCd: seq prices.srtnCd)

Fix: narrow with a `drv` (`top = drv prices | max trqu`), or use `fan` when there are at most φ.
""",
    ),
    "R503": _c(
        "tool call failed (structural)",
        """
The service rejected the request (an error envelope saying it is invalid, an unknown parameter,
a wrong code format) or answered with a body that does not fit the declared record. Structural
failures are not retried.

Fix: correct the arguments or the catalog declaration the message points at.
""",
    ),
    "R504": _c(
        "environmental failure",
        """
A timeout, connection error, 5xx, 429, quota exhaustion or a maintenance envelope. These are
retried with backoff, and reported only when retries are exhausted; they say nothing about the
trajectory.

Fix: try again later, raise the timeout, or run against the `world` or `store` backend.
""",
    ),
    "R505": _c(
        "missing recorded response",
        """
The `store` backend in strict mode was asked for a call it has no recording of (the arguments,
or the tool's declaration, changed since recording).

Fix: record again (`--record`), or replay in non-strict mode.
""",
    ),
    "R506": _c(
        "page bound reached",
        """
`pages all` reached the configured maximum number of pages before the service's total. A
truncated relation would give a wrong answer silently, so this fails instead.

Fix: raise `--max-pages`, narrow the call's arguments, or read `pages N` on purpose.
""",
    ),
    "R507": _c(
        "multi-valued field in arithmetic",
        """
A field reference used as one value — compared in an `if`, or in arithmetic — held more than
one distinct value at run time; the message names the field and its values (checked before the
statement runs). The checker refuses the cases it can tell in advance (`E220`).

    answer price.clpr * 2           # `price` holds several rows

Fix: narrow the relation with a `drv` first, or aggregate (`max(price.clpr)`).
""",
    ),
    "R508": _c(
        "`say` template failed",
        """
The template referred to an undefined name (templates run with strict undefined) or raised an
error while rendering.

    answer { report: latest.report_nm }
    say "{{ reprot }}"

Fix: use the names of the answer fields (`answer` for a single-expression answer).
""",
    ),
    "R509": _c(
        "internal error in a step",
        """
A step raised an unexpected exception: a bug in edgedsl, not in the trajectory or the service.
The run stops that step, reports it with its origin span, and labels it as internal.

Fix: report it with the trace (`--trace trace.json`) attached.
""",
    ),
    "R510": _c(
        "recording a response failed",
        """
`record` could not write a successful response to the store (disk full, file locked, read-only
path). The write is rolled back; nothing half-written is visible. Environmental: the call itself
succeeded.

Fix: free space or choose another `--store` path, then run again.
""",
    ),
    "R511": _c(
        "store file cannot be used",
        """
A store file given to `--backend store --store`, `--record` or `edgedsl store stats | export |
drift` is not a store that can be opened: no such file (replay never creates one), a directory,
an empty file, a SQLite database or another file that is not DuckDB's, a truncated or damaged
DuckDB file, or a DuckDB database that is not an edgedsl store. Nothing is written to it and no
DuckDB extension is loaded or downloaded to read it. The same code reports a store held by
another process past `EDGEDSL_STORE_TIMEOUT` seconds; that one may succeed later.

    $ edgedsl run lunch.edge --backend store --store lunch.sqlite

Fix: give the path of a store recorded with `--record`, or record one.
""",
    ),
    "R512": _c(
        "response not recorded",
        """
`--record` could not store one response for a reason of that response: its tool declares a
field named like one of the store's own columns (`__key`, `__row`, `__arm`, `__raw`, `__seq`, in
any case), its reported total does not fit a 64-bit integer, its arguments or records cannot be
written as JSON, or DuckDB refuses one of its values. Every other response of the run is
recorded; running again records the same problem again. The run's answers are unaffected; the
exit code is 1 because the recording is incomplete.

Fix: correct the tool (its declaration or what it returns); replaying that call fails (`R505`)
until it is recorded.
""",
    ),
    # ------------------------------------------------------------ warnings
    "W001": _c(
        "unused binding",
        """
A binding is used by no call, `drv`, predicate or answer; it still costs calls at run time.
Names starting with `_` are exempt. Not reported when the trajectory has no answer (`W003`).

Fix: remove it, or rename it `_name` to keep it on purpose.
""",
    ),
    "W002": _c(
        "paged tool read without `pages`",
        """
Without a `pages` clause only the first page of a paged tool is read, and later records are
silently missing.

    filings = dart.disclosures(corp_code: seq corp.corp_code)

Fix: `… ) pages all`, or `pages N` for at most N pages.
""",
    ),
    "W003": _c(
        "trajectory without an answer",
        """
A trajectory computes relations but never says what its answer is.

Fix: add `answer x.field` or `answer { name: expr, … }`.
""",
    ),
    "W004": _c(
        "junction checked only at run time",
        """
The field's type does not guarantee the parameter's type, but can hold it: a `str` field into a
code or enum parameter, a `num` into an `int`, a number into a `str`, `json` into anything.
Each value is checked when the call runs.

    corp_code: str          # in the record
    … (corp_code: seq x.corp_code)     # parameter is CorpCode

Fix: declare the field with the parameter's type in the catalog when every value is one.
""",
    ),
    "W005": _c(
        "`say` refers to an unknown name",
        """
The template uses a name that is not a field of the `answer { … }` block (or `answer` for a
single-expression answer); rendering will fail (`R508`).

Fix: use one of the answer's names.
""",
    ),
    "W006": _c(
        "the answer is not determined",
        """
The run's answer depends on something the program does not state: a `most_frequent` whose top
count was shared by several values (the tie went to the smallest, a rule the question does not
mention), or a call that read only part of its result (`pages 1` of 6,750 records). Reported by
`edgedsl run` after a run that succeeded, at the step that caused it, only when the tie or the
partial read reaches an answer field through the dataflow (a `drv` source, a junction, a
`parallel`'s shared argument, an `if` predicate); one in a branch not taken, or in a relation no
answer reads, does not count. `max` / `min` keep every tied row, so their ties never cause it.
`edgedsl run --json` carries `determined: false`, the causes and these warnings;
`edgedsl run --determinacy` re-runs with the opposite tie-break, another page size and
`pages all` to show which one changes the answer.

    schools = neis.academies(ATPT_OFCDC_SC_CODE: "B10")        # 1 page of 6,750 records
    code = drv schools | most_frequent ACA_ASNUM               # 1,000 values appear once each

Fix: `pages all` on the call; narrow the input of `most_frequent` by something meaningful
(`drv … | where …` the question states) so that one value is the most frequent; or say in the
question that only the first records are meant.
""",
    ),
    "W007": _c(
        "a call read fewer records than the service reported",
        """
After a run that succeeded: a call (or `compare`) read fewer records than the service said it
holds — without `pages` only the first page is read, and `pages N` stops after N.

    found = juso.addrLinkApi(keyword: "세종대로")   # read 100, the service reported 128

Reported by `edgedsl run` (and in `--json` under `warnings`) for every such call, whether or
not the answer depends on it; a partial read the answer depends on is `W006` instead (named
once).

Fix: `pages all` (bounded by `max_pages`), or narrow the call's arguments so that one page
holds the whole result.
""",
    ),
    "W008": _c(
        "a junction over an edge that never ran",
        """
The junction is well typed, but the refined tool graph G* records that its edge — from the tool
that produced the relation to the tool called, binding this field to this parameter — was
pruned by refinement, or was tried and never returned records. Such a hand-off usually answers
nothing (`R501`) or null.

    cheapest = drv prices | min gasolinePrice
    menus = ex.menus(stdRestCd: seq cheapest.serviceAreaCode2)
    # the shipped G* pruned this edge: 0 of 4 executions returned records (4 structural failures)

`edgedsl check` reads the shipped G* for programs over the standard library, or the file given
with `--graph GSTAR.json`; `--no-graph` turns the check off. An edge G* never proposed, or one it
kept and has not tried yet, gives no warning.

Fix: hand on a field of another tool (`edgedsl graph show GSTAR.json TOOL` lists the edges into
a tool and how often each ran), or narrow the relation first so the value is one the target
knows.
""",
    ),
    "W010": _c(
        "an option overrides the file's run setting",
        """
`edgedsl run` was given `--seed`, `--phi` or `--max-pages` with a value other than the one the
file's `run { … }` block states. The option wins, so the run may not reproduce the answer the
file was written with (a synthesized file's answer was computed on the world of its `seed`).

    edgedsl run t00001.edge --seed 3     # the file says run { seed: 1 }

Fix: leave the option out to run the file as it was written, or change the file's setting.
""",
    ),
}


def explain(code: str) -> str:
    """The long explanation of ``code`` (``E204``, case-insensitive); KeyError when unknown."""
    key = code.upper()
    info = CODES[key]
    family = {
        "E0": "syntax",
        "E1": "names and catalogs",
        "E2": "types and reducers",
        "E3": "dataflow graph",
        "E4": "plan",
        "R5": "run time",
        "W0": "warning",
    }.get(key[:2], "")
    return f"{key}: {info.title}  [{family}]\n\n{info.explanation}\n"


__all__ = ["CODES", "CodeInfo", "explain"]
