"""The VS Code extension folder (editors/vscode): its manifest, language configuration and
TextMate grammar, checked against the grammar (every keyword highlighted as one) and the CLI
(the command it starts exists)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from edgedsl.lsp.lexer import grammar_pattern
from edgedsl.reduce.registry import REDUCERS
from tests.lsp.test_lexer import written_keywords

ROOT = Path(__file__).resolve().parents[2]
VSCODE = ROOT / "editors" / "vscode"
MANIFEST = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
TM = json.loads((VSCODE / "syntaxes" / "edge.tmLanguage.json").read_text(encoding="utf-8"))
KEYWORD_SCOPES = ("keyword.", "storage.type.", "constant.language.", "support.function.")


def _patterns(node: Any) -> list[dict[str, Any]]:
    """Every pattern of the TextMate grammar with a ``match``, nested ones included."""
    out = []
    if isinstance(node, dict):
        if "match" in node:
            out.append(node)
        for value in node.values():
            out.extend(_patterns(value))
    elif isinstance(node, list):
        for value in node:
            out.extend(_patterns(value))
    return out


def _scopes(pattern: dict[str, Any]) -> list[str]:
    names = [pattern.get("name", "")]
    names += [c.get("name", "") for c in pattern.get("captures", {}).values()]
    return [n for n in names if n]


def _highlighted_as_keyword(word: str) -> bool:
    for p in _patterns(TM["repository"]):
        m = re.search(p["match"], f" {word} ")
        if m and m.group(0).strip() == word and any(
                s.startswith(KEYWORD_SCOPES) for s in _scopes(p)):
            return True
    return False


def test_every_grammar_keyword_is_highlighted() -> None:
    """Each keyword of grammar/edge.lark, and each reducer of the registry, is matched by a
    keyword pattern of the TextMate grammar (a keyword the grammar gains fails here)."""
    missing = [w for w in sorted(written_keywords()) if not _highlighted_as_keyword(w)]
    assert not missing, missing
    words = [r.surface for r in REDUCERS.values() if r.surface.isidentifier()]
    assert all(_highlighted_as_keyword(w) for w in words)
    assert not _highlighted_as_keyword("types")  # a keyword inside a name is no keyword


def test_textmate_grammar_patterns() -> None:
    """The grammar's patterns compile, and its file is the one the manifest names."""
    for p in _patterns(TM):
        re.compile(p["match"])
    (grammar,) = MANIFEST["contributes"]["grammars"]
    assert grammar["scopeName"] == TM["scopeName"] == "source.edge"
    assert (VSCODE / grammar["path"]).resolve() == (
        VSCODE / "syntaxes" / "edge.tmLanguage.json").resolve()


def test_language_configuration() -> None:
    """Comments start as the grammar's COMMENT does; brackets are the grammar's; a word is
    the grammar's NAME."""
    (language,) = MANIFEST["contributes"]["languages"]
    assert language["id"] == "edge" and language["extensions"] == [".edge"]
    conf = json.loads((VSCODE / language["configuration"]).read_text(encoding="utf-8"))
    assert grammar_pattern("COMMENT").startswith(conf["comments"]["lineComment"])
    assert {tuple(b) for b in conf["brackets"]} == {("{", "}"), ("[", "]"), ("(", ")")}
    assert conf["wordPattern"] == grammar_pattern("NAME")


def test_client_starts_edgedsl_lsp() -> None:
    """The client settings start `edgedsl lsp`, a command the CLI has."""
    props = MANIFEST["contributes"]["configuration"]["properties"]
    assert props["edgedsl.server.command"]["default"] == "edgedsl"
    assert props["edgedsl.server.args"]["default"] == ["lsp"]
    assert (VSCODE / MANIFEST["main"]).is_file()
    assert "vscode-languageclient" in MANIFEST["dependencies"]
    done = subprocess.run([sys.executable, "-m", "edgedsl", "lsp", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "--lib" in done.stdout


def test_lsp_without_pygls_names_the_extra() -> None:
    """Where pygls is not installed, `edgedsl lsp` says which extra to install (exit 2)."""
    code = ("import sys; sys.modules['pygls'] = None\n"
            "from edgedsl.cli import main\nsys.exit(main(['lsp']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert "pip install 'edgedsl[lsp]'" in done.stderr and "pygls" in done.stderr


# `vscode` and `vscode-languageclient/node` as node modules that record what the extension does
_STUBS = {
    "vscode/index.js": """
const settings = JSON.parse(process.env.EDGE_SETTINGS);
module.exports = { workspace: { getConfiguration(section) {
  if (section !== "edgedsl") throw new Error("section " + section);
  return { get: (key, fallback) => key in settings ? settings[key] : fallback };
} } };
""",
    "vscode-languageclient/node.js": """
class LanguageClient {
  constructor(id, name, server, client) { Object.assign(this, { id, name, server, client });
    globalThis.made = this; }
  start() { this.started = true; return Promise.resolve(); }
  stop() { this.stopped = true; return Promise.resolve(); }
}
module.exports = { LanguageClient };
""",
    "vscode-languageclient/package.json": '{"name": "vscode-languageclient"}',
}

_DRIVE = """
const ext = require(process.argv[2]);
const context = { subscriptions: [] };
ext.activate(context).then(async () => {
  const c = globalThis.made;
  await ext.deactivate();
  console.log(JSON.stringify({ id: c.id, server: c.server, client: c.client,
    started: c.started, stopped: c.stopped, subscribed: context.subscriptions.length }));
});
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize(("settings", "command", "args", "lib"), [
    ({}, "edgedsl", ["lsp"], []),
    ({"server.command": "/opt/venv/bin/edgedsl", "server.args": ["lsp", "--lib", "cat"],
      "lib": ["catalogs"]}, "/opt/venv/bin/edgedsl", ["lsp", "--lib", "cat"], ["catalogs"]),
], ids=["defaults", "settings"])
def test_the_extension_starts_the_server_it_is_configured_with(
        tmp_path: Path, settings: dict[str, Any], command: str, args: list[str],
        lib: list[str]) -> None:
    """extension.js run by node against recording stand-ins for VS Code's API: activation
    starts one language client for .edge files with the configured command, and deactivation
    stops it."""
    modules = tmp_path / "node_modules"
    for rel, text in _STUBS.items():
        (modules / rel).parent.mkdir(parents=True, exist_ok=True)
        (modules / rel).write_text(text, encoding="utf-8")
    drive = tmp_path / "drive.js"
    drive.write_text(_DRIVE, encoding="utf-8")
    done = subprocess.run(
        ["node", str(drive), str(VSCODE / MANIFEST["main"])], capture_output=True, text=True,
        timeout=60, env={**os.environ, "NODE_PATH": str(modules),
                         "EDGE_SETTINGS": json.dumps(settings)})
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["id"] == "edgedsl" and seen["server"] == {"command": command, "args": args}
    assert {"scheme": "file", "language": "edge"} in seen["client"]["documentSelector"]
    assert seen["client"]["initializationOptions"] == {"lib": lib}
    assert seen["started"] and seen["stopped"] and seen["subscribed"] == 1
