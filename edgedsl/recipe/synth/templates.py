"""Where the query and prompt templates of synthesis live, the error a template raises, and the
glossary (``glossary.json``: the Korean labels of platforms, fields and code values), packaged
and merged with a user's directory."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "PACKAGE_TEMPLATES",
    "PROMPT_TEMPLATES",
    "Glossary",
    "QueryTemplateError",
    "load_glossary",
]

PACKAGE_TEMPLATES = Path(__file__).resolve().parent / "templates" / "query"


"""The packaged query templates (and ``glossary.json``)."""


PROMPT_TEMPLATES = Path(__file__).resolve().parent / "templates" / "prompts"


"""The packaged prompt templates of the chat-model paraphrase and static check."""


class QueryTemplateError(Exception):
    """A query or prompt template (or glossary) that cannot be found, read or rendered."""


class Glossary(BaseModel):
    """Korean labels for templates (``glossary.json``): ``platforms`` (how a query names a
    platform), ``labels`` (field or parameter → noun), ``formats`` (parameter → ``{v}년``…),
    ``values`` (parameter or field → code value → meaning)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    platforms: dict[str, str] = Field(default_factory=dict)
    labels: dict[str, str] = Field(default_factory=dict)
    formats: dict[str, str] = Field(default_factory=dict)
    values: dict[str, dict[str, str]] = Field(default_factory=dict)

    def merged(self, other: Glossary) -> Glossary:
        """This glossary with ``other``'s entries on top (``values`` merged per name)."""
        values = {k: dict(v) for k, v in self.values.items()}
        for k, v in other.values.items():
            values[k] = {**values.get(k, {}), **v}
        return Glossary(platforms={**self.platforms, **other.platforms},
                        labels={**self.labels, **other.labels},
                        formats={**self.formats, **other.formats}, values=values)


@lru_cache(maxsize=64)
def _read_glossary(path: str, mtime_ns: int) -> Glossary:
    try:
        return Glossary.model_validate(orjson.loads(Path(path).read_bytes()))
    except (OSError, orjson.JSONDecodeError, ValidationError) as exc:
        raise QueryTemplateError(f"glossary {path!r} cannot be used: {exc}") from None


def load_glossary(templates: Path | None = None) -> Glossary:
    """The packaged glossary, with ``templates/glossary.json`` merged over it when present."""
    base_path = PACKAGE_TEMPLATES / "glossary.json"
    base = _read_glossary(str(base_path), base_path.stat().st_mtime_ns)
    user = templates / "glossary.json" if templates is not None else None
    if user is None or not user.is_file():
        return base
    return base.merged(_read_glossary(str(user.resolve()), user.stat().st_mtime_ns))
