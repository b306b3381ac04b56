// The dashboard as a user sees it: Debian's chromium, headless, driven by
// playwright-core, against a real daemon. Driven by client/tests/dashboard.rs:
//
//   node dashboard.mjs <one-time page url> <dashboard url> <screenshot dir>
//
// The browser starts where a user's does: at the one-time `file://` page that
// `lean-ctx dashboard` hands the opener, which trades its code for the session cookie.
//
// with DASHBOARD_SHIM (the lean-ctx binary) and DASHBOARD_PROJECT (a project whose
// python language server runs) in the environment, which is the test's isolated one,
// so the shim call below reaches the same daemon. Prints `ok` when every check passed;
// screenshots of each page go to the directory for review.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [handover, url, shots] = process.argv.slice(2);
const shim = process.env.DASHBOARD_SHIM;
const project = process.env.DASHBOARD_PROJECT;
if (!handover || !url || !shots || !shim || !project) {
  console.error('usage: DASHBOARD_SHIM=... DASHBOARD_PROJECT=... node dashboard.mjs <page url> <url> <screenshot dir>');
  process.exit(2);
}
mkdirSync(shots, { recursive: true });
const origin = new URL(url).origin;
const WAIT = { timeout: 10_000 };

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

async function show(page, name) {
  await page.click(`nav a[data-page="${name}"]`);
  await page.waitForSelector(`#page-${name}:not([hidden])`, WAIT);
}

async function shot(page, name) {
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  // We run as root in CI, where chromium's sandbox cannot start.
  args: ['--no-sandbox'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  const foreign = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol !== 'file:' && u.origin !== origin) foreign.push(r.url());
  });

  // The handover: the one-time page posts its code, the dashboard sets the session
  // cookie and moves on to itself.
  await page.goto(handover);
  await page.waitForURL(url, WAIT);
  // Overview: renders, goes live, lists this test's project.
  await page.waitForSelector('#live.live', WAIT);
  check(await page.evaluate(() => document.cookie) === '', 'the session cookie is out of scripts\' reach');
  await page.waitForFunction(
    (root) => [...document.querySelectorAll('#overview-projects td.root')].some((td) => td.textContent === root),
    project, WAIT);
  check(/\d/.test(await page.textContent('#version')), 'the version is shown');
  // The definition call the Rust test made is in the recent calls, with its backing.
  await page.waitForSelector('#recent-calls tbody tr[data-action="definition"]', WAIT);
  check((await page.textContent('#recent-calls tbody tr[data-action="definition"]')).includes('pylsp'),
    'the recent definition call names pylsp');
  await shot(page, 'overview');

  // A call from a shim appears without a reload: a marker on `window` survives.
  await page.evaluate(() => { window.notReloaded = true; });
  const before = await page.$$eval('#recent-calls tbody tr[data-action="outline"]', (rows) => rows.length);
  const call = spawnSync(shim, ['--json', 'outline', 'shapes.py'], { cwd: project, env: process.env, encoding: 'utf8' });
  check(call.status === 0, `lean-ctx outline answered: ${call.stdout} ${call.stderr}`);
  await page.waitForFunction(
    ([n, root]) => {
      const rows = [...document.querySelectorAll('#recent-calls tbody tr[data-action="outline"]')];
      return rows.length > n && rows[0].dataset.root === root;
    },
    [before, project], WAIT);
  check(await page.evaluate(() => window.notReloaded === true), 'the page was not reloaded');
  await shot(page, 'overview-live');

  await show(page, 'projects');
  await page.waitForFunction(
    (root) => [...document.querySelectorAll('#projects-table td.root')].some((td) => td.textContent.startsWith(root)),
    project, WAIT);
  await shot(page, 'projects');

  await show(page, 'ides');
  await page.waitForFunction(
    (root) => [...document.querySelectorAll('#ides-table tbody tr')].some((tr) => tr.cells[0].textContent === root && tr.cells[4].textContent === 'not checked yet'),
    project, WAIT);
  await shot(page, 'ides');

  await show(page, 'gain');
  // The outline above saved tokens (a file's outline stands in for reading it).
  await page.waitForSelector('#gain-chart svg rect.bar', WAIT);
  const report = await page.evaluate(async () => (await fetch('/api/gain')).json());
  await page.waitForFunction(
    (saved) => document.getElementById('gain-saved').textContent === saved,
    report.summary.tokens_saved.toLocaleString('en-US'), WAIT);
  check(await page.$$eval('#tasks-table tbody tr', (rows) => rows.length) === report.tasks.length,
    'one row per task category');
  await shot(page, 'gain');

  // Language servers: the python server is listed; Evict makes it go.
  await show(page, 'servers');
  const row = `#servers-table tbody tr[data-language="python"][data-root="${project}"]`;
  await page.waitForSelector(row, WAIT);
  check((await page.textContent(`${row} td:nth-child(5)`)).startsWith('ready'), 'the server is ready');
  await shot(page, 'servers');
  // Restart: a new process for the same root and language.
  const pid = await page.textContent(`${row} td:nth-child(4)`);
  await page.click(`${row} button.restart`);
  await page.waitForFunction(
    ([sel, old]) => {
      const td = document.querySelector(`${sel} td:nth-child(4)`);
      return td && /^\d+$/.test(td.textContent) && td.textContent !== old;
    },
    [row, pid], WAIT);
  await page.click(`${row} button.evict`);
  await page.waitForSelector(row, { state: 'detached', timeout: 10_000 });
  await page.waitForSelector('#servers-empty:not([hidden])', WAIT);
  await page.waitForFunction(() => /evict: 1 server/.test(document.getElementById('servers-message').textContent), null, WAIT);
  // Still gone a push later: the status agrees.
  await page.waitForTimeout(1500);
  check(await page.$(row) === null, 'the evicted server stays gone');
  await shot(page, 'servers-evicted');

  check(await page.evaluate(() => window.notReloaded === true), 'the page was never reloaded');
  check(foreign.length === 0, `no request left the dashboard's origin: ${foreign.join(', ')}`);
  check(problems.length === 0, `no errors in the page: ${problems.join('; ')}`);
  console.log('ok');
} finally {
  await browser.close();
}
