// Browser test of the web console, run by ConsoleBrowserTest (JUnit), which starts Postgres, a
// workload and the console first:
//   node console.spec.mjs URL TOKEN RUNS_JSON SCREENSHOT
// RUNS_JSON names the workload's runs: {"failed","running","detail","flow"}. Prints one
// "ok <check>" line per check; the first failed check prints "FAIL <check>: <why>" and exits 1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  await page.screenshot({ path: join(dirname(screenshot), 'run-list.png') });
  console.log('ok ' + current);

  check('the overview charts show the counts of the known load');
  const bars = await page.locator('#activity g.bucket').evaluateAll((gs) => {
    const sum = { started: 0, succeeded: 0, failed: 0, parked: 0, waiting: 0 };
    for (const g of gs) {
      for (const k of Object.keys(sum)) {
        sum[k] += Number(g.getAttribute('data-' + k));
      }
    }
    return { sum, buckets: gs.length };
  });
  expect(bars.buckets === 60, `the last hour has ${bars.buckets} bars, not one per minute`);
  for (const k of Object.keys(runs.overview)) {
    expect(bars.sum[k] === runs.overview[k],
      `${k}: the chart counts ${bars.sum[k]}, the load has ${runs.overview[k]}`);
  }
  const flows = await page.locator('#durations tbody tr[data-flow]').evaluateAll((rows) =>
    rows.map((r) => r.getAttribute('data-flow')));
  expect(flows.includes(runs.ended), `no durations of ${runs.ended}: ${flows.join(', ')}`);
  await page.selectOption('select[name=window]', '24h');
  await Promise.all([page.waitForURL(/window=24h/), page.click('#filters button[type=submit]')]);
  const day = await page.locator('#activity g.bucket').count();
  expect(day === 72 && (await page.getAttribute('#overview', 'data-window')) === '24h',
    `the 24h window has ${day} bars`);
  await page.goto(url);
  console.log('ok ' + current);

  check('searching an idempotency key finds its run');
  await page.fill('#filters input[name=run]', runs.key);
  await Promise.all([page.waitForURL(/run=/), page.click('#filters button[type=submit]')]);
  const found = await page.locator('#runs tbody tr').evaluateAll((rows) =>
    rows.map((r) => r.getAttribute('data-run')));
  expect(found.length === 1 && found[0] === runs.detail, `found ${found.join(', ')}`);
  await page.goto(url);
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

  check("a run's timeline shows its child with the parked call, the timer and the signal wait in order, with their durations");
  await page.goto(url + 'runs/' + encodeURIComponent(runs.body));
  const items = await page.locator('#timeline details.tl-item').evaluateAll((els) =>
    els.map((e) => ({
      kind: e.dataset.kind,
      ms: Number(e.dataset.ms),
      marks: e.dataset.marks,
      label: e.querySelector('.tl-label').textContent,
      nested: e.parentElement.closest('.tl-nested') !== null,
    })));
  const top = items.filter((i) => !i.nested);
  const at = (kind) => top.findIndex((i) => i.kind === kind);
  const [child, timer, signal] = ['child', 'timer', 'signal'].map(at);
  expect(child >= 0 && timer >= 0 && signal >= 0,
    `timeline items: ${top.map((i) => i.kind).join(', ')}`);
  expect(child < timer && timer < signal, `out of order: ${top.map((i) => i.kind).join(', ')}`);
  const within = (i, ms) => top[i].ms >= ms && top[i].ms < ms + 5000;
  expect(within(child, runs.childMs), `the child took ${top[child].ms} ms`);
  expect(within(timer, runs.timerMs), `the timer took ${top[timer].ms} ms`);
  expect(within(signal, runs.signalMs), `the signal wait took ${top[signal].ms} ms`);
  expect(top[child].label.includes(runs.child), `child label: ${top[child].label}`);
  const parked = items.find((i) => i.nested && i.kind === 'attempt' && i.marks.includes('park'));
  expect(parked !== undefined, 'the child\'s parked call attempt is not marked parked');
  expect(items.some((i) => i.nested && i.kind === 'call' && i.label.includes('tickets · create')),
    'the child\'s MCP call is not on the timeline');
  expect(top.some((i) => i.kind === 'delivery' && i.label.includes('approve')),
    'the signal sent is not on the timeline');
  await page.screenshot({ path: join(dirname(screenshot), 'run-with-children.png') });
  console.log('ok ' + current);

  check('selecting a call shows its arguments, output and idempotency key');
  const call = page.locator('#timeline details.tl-item[data-kind=call]').first();
  await call.locator(':scope > summary').click();
  const shown = await call.locator(':scope > .tl-detail').innerText();
  const childJson = await (await page.request.get(url + 'api/runs/' + encodeURIComponent(runs.child))).json();
  const key = childJson.run.steps[0].effects[0].idempotencyKey;
  for (const want of ['arguments', 'printer on fire', 'output', 'T-7', 'idempotency', key]) {
    expect(shown.includes(want), `the call's detail lacks ${want}: ${shown}`);
  }
  console.log('ok ' + current);

  check('the JSON view is one click away');
  const [json] = await Promise.all([page.waitForNavigation(), page.click('#json-view')]);
  expect(json.status() === 200 && (await json.json()).run.runId === runs.body, 'no JSON of the run');
  console.log('ok ' + current);

  // The aim is under a second; on a loaded CI machine the bound only catches a blow-up (a page
  // that grows quadratically with its entries), and the figure is printed.
  check("a 1,000-entry run's page renders, its load time printed");
  await page.goto(url + 'runs/' + encodeURIComponent(runs.many), { waitUntil: 'load' });
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0];
    return {
      load: n.loadEventEnd,
      response: n.responseEnd,
      first: n.responseStart,
      parsed: n.domInteractive,
      bytes: n.transferSize,
    };
  });
  const took = nav.load;
  const itemCount = await page.locator('#timeline details.tl-item').count();
  expect(itemCount >= 500, `the timeline shows ${itemCount} items`);
  const last = page.locator('#timeline details.tl-item[data-detail]').last();
  await last.locator('summary').click();
  await last.locator('.tl-detail dl.facts').waitFor();
  await Promise.all([page.waitForURL(/\/journal$/), page.click('#journal-view')]);
  const entries = await page.locator('#journal tbody tr').count();
  expect(entries >= 1000, `the journal shows ${entries} entries`);
  expect(took < 30000, `the page took ${Math.round(took)} ms (first byte at ${Math.round(nav.first)} ms, last at ${Math.round(nav.response)} ms)`);
  console.log(`ok ${current} (${Math.round(took)} ms for ${entries} entries: first byte at`
    + ` ${Math.round(nav.first)} ms, last at ${Math.round(nav.response)} ms, parsed at`
    + ` ${Math.round(nav.parsed)} ms, ${Math.round(nav.bytes / 1024)} KiB)`);

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

  check('a form posted from another origin is refused, even with the token');
  const other = await context.newPage();
  await other.goto('about:blank');
  await other.setContent(`<form method="post" action="${url}runs/${encodeURIComponent(runs.running)}/cancel">` +
    `<input name="token" value="${token}"></form>`);
  const [forged] = await Promise.all([
    other.waitForNavigation(),
    other.evaluate(() => document.forms[0].submit()),
  ]);
  expect(forged.status() === 403, `the cross-origin post answered ${forged.status()}`);
  const forgedLine = await other.locator('#refusal').textContent();
  expect(forgedLine.startsWith('error ui_cross_site:'), forgedLine);
  await other.close();
  await page.goto(url + 'runs/' + encodeURIComponent(runs.running));
  expect((await page.locator('#run-status').innerText()) === 'running', 'the forged post acted');
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

  check('answering an input request through the generated form readies the step');
  await page.goto(url + 'runs/' + encodeURIComponent(runs.asks));
  await page.fill('#token', token);
  const form = page.locator('form[data-action=answer]');
  expect((await form.locator('input[name="in.who.name"][required]').count()) === 1,
    'the required string is not a required field');
  await form.locator('input[name="in.who.name"]').fill('Ada');
  await form.locator('input[name="in.who.seats"]').fill('3');
  await form.locator('input[name="in.who.vip"]').check();
  await form.locator('select[name="in.who.tier"]').selectOption('gold');
  await Promise.all([page.waitForURL(/done=/), form.locator('button[type=submit]').click()]);
  const answered = await page.locator('#notice').textContent();
  expect(answered.startsWith('step call answered'), answered);
  const after = await (await page.request.get(url + 'api/runs/' + encodeURIComponent(runs.asks))).json();
  const callStep = after.run.steps.find((s) => s.stepId === 'call');
  expect(callStep.status === 'ready', `the step is ${callStep.status}`);
  const entry = after.run.timeline.find((e) => e.type === 'step.answered');
  expect(entry && entry.by === 'ui:127.0.0.1', 'the answer is not journaled with its actor');
  const content = entry.responses.who.content;
  expect(content.name === 'Ada' && content.seats === 3 && content.vip === true &&
    content.tier === 'gold', 'answered ' + JSON.stringify(content));
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
