// pa11y with HTML_CodeSniffer (WCAG 2 AA) over pages of the served site, in Debian's Chromium.
// Reads one JSON request on stdin, {"urls": [...], "headers": {...}}, and prints one JSON line:
// {"<url>": [{"code", "message", "selector", "context"}, ...]} with every error pa11y reports.
import { readFileSync } from "node:fs";
import pa11y from "pa11y";
import puppeteer from "puppeteer";

const request = JSON.parse(readFileSync(0, "utf8"));
const browser = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
});
const found = {};
try {
  for (const url of request.urls) {
    const page = await browser.newPage();
    try {
      const result = await pa11y(url, {
        browser, page, runners: ["htmlcs"], standard: "WCAG2AA", includeWarnings: false,
        includeNotices: false, headers: request.headers || {}, timeout: 60000,
        viewport: request.viewport || { width: 1280, height: 900 },
      });
      found[url] = result.issues.filter((issue) => issue.type === "error").map((issue) => ({
        code: issue.code, message: issue.message, selector: issue.selector, context: (issue.context || "").slice(0, 200),
      }));
    } finally {
      await page.close();
    }
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(found) + "\n");
