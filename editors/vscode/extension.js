// The edgedsl extension: starts `edgedsl lsp` (the language server of the edgedsl package)
// for .edge files. Highlighting comes from syntaxes/edge.tmLanguage.json; everything else
// (diagnostics as you type, hover, go to definition, completion, formatting, outline) from
// the server. See docs/editors.md.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("edgedsl");
  const command = config.get("server.command", "edgedsl");
  const args = config.get("server.args", ["lsp"]);
  const serverOptions = { command, args };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "edge" }, { scheme: "untitled", language: "edge" }],
    initializationOptions: { lib: config.get("lib", []) },
  };
  client = new LanguageClient("edgedsl", "edgedsl", serverOptions, clientOptions);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
