// The oracle for lib/templates.py: Handlebars.js itself (the version package-lock.json pins).
// Reads one JSON request per line on stdin, {"template": "...", "context": {...}}, and answers
// each with one line: {"output": "..."} or {"error": "..."}.
"use strict";
const Handlebars = require("handlebars");
const readline = require("readline");

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  let answer;
  try {
    const request = JSON.parse(line);
    answer = { output: Handlebars.compile(request.template)(request.context) };
  } catch (error) {
    answer = { error: String(error && error.message ? error.message : error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
