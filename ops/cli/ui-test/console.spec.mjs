// Browser test of the web console, run by ConsoleBrowserTest (JUnit), which starts Postgres, a
// workload and the console first:
//   node console.spec.mjs URL TOKEN RUNS_JSON SCREENSHOT
// RUNS_JSON names the workload's runs: {"failed","running","detail","flow"}. Prints one
// "ok <check>" line per check; the first failed check prints "FAIL <check>: <why>" and exits 1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [url, token, runsJson, screenshot] = process.argv.slice(2);
if (!url || !token || !runsJson || !screenshot) {
  console.error('usage: node console.spec.mjs URL TOKEN RUNS_JSON SCREENSHOT');
  process.exit(2);
}
const runs = JSON.parse(runsJson);
const executablePath = process.env.FLOWS_CHROMIUM || '/usr/bin/chromium';
const profile = mkdtempSync(join(tmpdir(), 'flows-ui-chromium-'));

let current = 'launch';
function check(name) {
  current = name;
}
function expect(condition, why) {
  if (!condition) {
    throw new Error(why);
  }
}

const context = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
  viewport: { width: 1280, height: 900 },
});
context.setDefaultTimeout(15000);
try {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  check('the run list shows the runs newest first');
  let response = await page.goto(url);
  expect(response.status() === 200, `GET / answered ${response.status()}`);
  const ids = await page.locator('#runs tbody tr').evaluateAll((rows) =>
    rows.map((r) => r.getAttribute('data-run')));
  for (const id of [runs.failed, runs.running, runs.detail]) {
    expect(ids.includes(id), `run ${id} is not listed (${ids.join(', ')})`);
  }
  expect(ids.indexOf(runs.running) < ids.indexOf(runs.failed),
    'the newer run is not above the older one');
  console.log('ok ' + current);

  check('a filter submitted from the form narrows the list');
  await page.selectOption('select[name=status]', 'failed');
  await Promise.all([page.waitForURL(/status=failed/), page.click('#filters button[type=submit]')]);
  const statuses = await page.locator('#runs tbody tr .status').allTextContents();
  expect(statuses.length > 0 && statuses.every((s) => s === 'failed'),
    `rows after status=failed: ${statuses.join(', ')}`);
  const filtered = await page.locator('#runs tbody tr').evaluateAll((rows) =>
    rows.map((r) => r.getAttribute('data-run')));
  expect(filtered.includes(runs.failed) && !filtered.includes(runs.running),
    `filtered rows: ${filtered.join(', ')}`);
  console.log('ok ' + current);

  check('a bad filter shows its one-line refusal');
  response = await page.goto(url + '?since=yesterday');
  expect(response.status() === 400, `answered ${response.status()}`);
  const refusal = await page.locator('#refusal').textContent();
  expect(refusal.startsWith('error invalid_input: cannot read since yesterday'), refusal);
  console.log('ok ' + current);

  check("a run's detail shows input, steps, effects and the journal");
  await page.goto(url + 'runs/' + encodeURIComponent(runs.detail));
  const detail = await page.locator('main').innerText();
  for (const want of ['printer on fire', '/mcp/tickets/create', 'T-42', 'console-worker',
    'step.attempt.started', 'effect.confirmed', 'run.completed']) {
    expect(detail.includes(want), `the detail page lacks ${want}`);
  }
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log('ok ' + current);

  check('the list updates itself while open');
  const list = await context.newPage();
  await list.goto(url + '?flow=' + encodeURIComponent(runs.flow));
  const row = list.locator(`#runs tbody tr[data-run="${runs.running}"] .status`);
  expect((await row.textContent()) === 'running', 'the running run is not shown running');

  check('an action without the token is refused');
  await page.goto(url + 'runs/' + encodeURIComponent(runs.running));
  await page.evaluate(() => window.sessionStorage.clear());
  await page.fill('#token', '');
  const [refused] = await Promise.all([
    page.waitForNavigation(),
    page.click('form[data-action=cancel] button[type=submit]'),
  ]);
  expect(refused.status() === 401, `cancel without the token answered ${refused.status()}`);
  const line = await page.locator('#refusal').textContent();
  expect(line.startsWith('error ui_unauthorized:'), line);
  await page.goto(url + 'runs/' + encodeURIComponent(runs.running));
  expect((await page.locator('#run-status').innerText()) === 'running', 'the run changed');
  console.log('ok ' + current);

  check('an action with the token is done');
  await page.fill('#token', token);
  await Promise.all([
    page.waitForURL(/done=/),
    page.click('form[data-action=cancel] button[type=submit]'),
  ]);
  expect((await page.locator('#run-status').innerText()) === 'canceled', 'the run is not canceled');
  const notice = await page.locator('#notice').textContent();
  expect(notice === 'run canceled', notice);
  const journal = await page.locator('#journal').innerText();
  expect(journal.includes('by ui:127.0.0.1'), 'the cancel is not journaled with its actor');
  expect(!(await page.content()).includes(token), 'the page shows the token');
  console.log('ok ' + current);

  check('the list updates itself while open');
  await row.filter({ hasText: 'canceled' }).waitFor({ timeout: 10000 });
  console.log('ok ' + current);

  expect(errors.length === 0, 'script errors: ' + errors.join('; '));
  console.log('console.spec: all checks passed');
} catch (e) {
  console.log(`FAIL ${current}: ${e.message.split('\n')[0]}`);
  process.exitCode = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
