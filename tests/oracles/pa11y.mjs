// pa11y with HTML_CodeSniffer (WCAG 2 AA) over pages of the served site, in Debian's Chromium.
// Reads one JSON request on stdin, {"pages": [{"name", "url", "headers"}, ...]} (one browser for
// them all), and prints one JSON line, {"<name>": [{"code", "message", "selector", "context"}, ...]},
// with every error pa11y reports on each page.
import { readFileSync } from "node:fs";
import pa11y from "pa11y";
import puppeteer from "puppeteer";

const request = JSON.parse(readFileSync(0, "utf8"));
const browser = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  // As the other browser tests: no calls to services this machine cannot reach.
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic"],
});
const found = {};
// pa11y waits for the network to be quiet after each load (half a second of idling): a few pages
// at once keep the browser busy meanwhile.
const AT_ONCE = 4;

async function check({ name, url, headers }) {
  const page = await browser.newPage();
  try {
    const result = await pa11y(url, {
      browser, page, runners: ["htmlcs"], standard: "WCAG2AA", includeWarnings: false,
      includeNotices: false, headers: headers || {}, timeout: 60000,
      viewport: request.viewport || { width: 1280, height: 900 },
    });
    found[name] = result.issues.filter((issue) => issue.type === "error").map((issue) => ({
      code: issue.code, message: issue.message, selector: issue.selector, context: (issue.context || "").slice(0, 200),
    }));
  } finally {
    await page.close();
  }
}

try {
  const waiting = [...request.pages];
  await Promise.all(Array.from({ length: AT_ONCE }, async () => {
    while (waiting.length) {
      await check(waiting.shift());
    }
  }));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(found) + "\n");
