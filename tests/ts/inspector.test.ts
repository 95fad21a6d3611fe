// The Session inspector (`/inspect`) in a real browser: headless Chromium (Debian's `chromium`,
// installed by scripts/setup.sh) driven by playwright-core, against the real `switchboard serve`
// on codex and the mock model. The page is opened on a Session whose function-call Turn is
// running; the function result is posted by the test through the SDK, never by the page.
// Every wait is on page state (Playwright's waiting locators), never a sleep.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { chromium, type BrowserContext, type Request } from 'playwright-core';
import { API_KEY, Engine, WEATHER_FUNCTION, waitForSession } from './support.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';
const ARTEFACTS = path.join(ROOT, 'target', 'inspector');
const IN_CI = process.env.CI === 'true';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM && !IN_CI) {
  console.warn(`SKIPPING the inspector browser test: ${CHROMIUM} is missing (scripts/setup.sh installs it)`);
}
const skip = !HAVE_CHROMIUM && !IN_CI ? `${CHROMIUM} is missing` : false;

let engine: Engine;
let context: BrowserContext;
let profile: string;

before(async () => {
  if (skip) return;
  assert.ok(HAVE_CHROMIUM, `${CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium`);
  engine = await Engine.start();
  profile = mkdtempSync(path.join(tmpdir(), 'switchboard-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  await context?.close();
  await engine?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test('the inspector shows a running function-call Turn live: the pending call, its result, the answer', { skip }, async () => {
  const root = engine.baseURL.replace(/\/v1$/, '');
  const page = await context.newPage();
  const requests: Request[] = [];
  page.on('request', (r) => requests.push(r));
  const scriptErrors: string[] = [];
  page.on('pageerror', (e) => scriptErrors.push(String(e)));
  const policyViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) policyViolations.push(m.text());
  });

  const response = await page.goto(`${root}/inspect`);
  assert.equal(response?.status(), 200);
  assert.match(response!.headers()['content-security-policy'], /script-src 'self'/);

  // A refused key says so and leaves the key form up.
  await page.locator('#key-input').fill('sk-sb-not-a-key');
  await page.locator('#key-form button[type=submit]').click();
  await page.locator('#login-error', { hasText: 'refused' }).waitFor();

  await page.locator('#key-input').fill(API_KEY);
  await page.locator('#key-form button[type=submit]').click();
  await page.locator('#sessions').waitFor();

  // Markup in the input and in the function output must reach the page as text.
  const sessions = engine.client.beta.agents.sessions;
  const input = 'What is the weather in <img id="injected" src="x"> Paris?';
  const session = await sessions.create({
    environment: { type: 'none' },
    agent: { model: 'gpt-test', tools: [WEATHER_FUNCTION] },
    input,
  });

  await page.locator('#refresh-sessions').click();
  const row = page.locator(`tr[data-session-id="${session.id}"]`);
  await row.waitFor();
  assert.match(await row.innerText(), /codex/);
  assert.match(await row.innerText(), /no workspace/);
  await row.locator('a').click();
  await page.locator('#stream-state[data-state="live"]').waitFor();
  assert.equal(await page.locator('[data-fact="harness"]').innerText(), 'codex');

  // The call the Turn waits on appears as a pending required action.
  const pending = page.locator('#required-actions li[data-type="function_call"]', { hasText: 'get_weather' });
  await pending.waitFor();
  const waiting = await waitForSession(engine.client, session.id, (s) => s.required_actions.length > 0);
  const [action] = waiting.required_actions;
  assert.ok(action.type === 'function_call');
  assert.equal(await pending.getAttribute('data-id'), action.call_id);
  await page.locator(`.turn[data-turn-id="${action.turn_id}"] .item-function_call`, { hasText: action.call_id }).waitFor();

  const output = 'sunny <b id="bold">21C</b>';
  await sessions.events.create(session.id, {
    events: [
      { type: 'agent.session.input.tool_result', turn_id: action.turn_id, call_id: action.call_id, success: true, output },
    ],
  });

  // Live from the event stream: the action goes, the result and the final answer come.
  await pending.waitFor({ state: 'detached' });
  await page.locator('#required-actions-empty').waitFor();
  const turn = page.locator(`.turn[data-turn-id="${action.turn_id}"]`);
  await turn.locator('.item-message', { hasText: `FINAL: ${output}` }).waitFor();
  await page.locator(`.turn[data-turn-id="${action.turn_id}"][data-status="completed"]`).waitFor();
  await page.locator('[data-fact="status"]', { hasText: 'idle' }).waitFor();
  assert.match(await turn.locator('.item-function_call_output').innerText(), /sunny <b id="bold">21C<\/b>/);
  assert.match(await turn.locator('.item-function_call').innerText(), /"city": ""/);
  assert.match(await turn.locator('.item-message').first().innerText(), /<img id="injected" src="x">/);
  assert.equal(await page.locator('#injected, #bold').count(), 0);

  // The Turn's timeline, in order: queued, started, the call, its wait, its receipt, the end.
  const timeline = await turn.locator('.timeline').innerText();
  const steps = [
    'queued',
    'started',
    `function call get_weather (${action.call_id})`,
    `waits for the application: function_call get_weather (${action.call_id})`,
    `result received for ${action.call_id} (success)`,
    'completed',
  ];
  const at = steps.map((s) => timeline.indexOf(s));
  assert.ok(at.every((i) => i >= 0), `timeline lacks a step:\n${timeline}`);
  assert.deepEqual([...at].sort((a, b) => a - b), at, `timeline out of order:\n${timeline}`);
  assert.equal((await turn.locator('.timeline li').last().innerText()).endsWith('completed'), true);

  mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTEFACTS, 'session.png'), fullPage: true });

  // Read-only, public API, key in session storage only.
  const api = requests.filter((r) => new URL(r.url()).pathname.startsWith('/v1/'));
  assert.ok(api.length > 0);
  for (const r of api) {
    assert.equal(r.method(), 'GET', `${r.method()} ${r.url()}`);
    const headers = await r.allHeaders();
    assert.equal(headers['openai-beta'], 'agents=v1', r.url());
    assert.match(headers.authorization, /^Bearer sk-sb-/, r.url());
  }
  for (const r of requests) assert.ok(!r.url().includes(API_KEY), `the key is in a URL: ${r.url()}`);
  assert.ok(api.some((r) => r.url().includes(`/v1/agents/sessions/${session.id}/events`)));
  assert.deepEqual(await context.cookies(), []);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('switchboard.inspector.key')), API_KEY);
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  assert.deepEqual(scriptErrors, []);
  assert.deepEqual(policyViolations, []);
  await page.close();
});
