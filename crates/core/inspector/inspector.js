// The Switchboard Session inspector (issue 17): a read-only view of a Project's Sessions.
//
// It reads only the public /v1 API, exactly as an SDK client would (Authorization: Bearer,
// OpenAI-Beta: agents=v1), and never posts anything. The key lives in sessionStorage only.
// Every value from the API reaches the page as text (el() below appends strings as text
// nodes); nothing is ever parsed as markup.

const KEY_STORAGE = 'switchboard.inspector.key';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

const $ = (id) => document.getElementById(id);

/** An element with attributes and children; string children become text nodes. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// --- the public API -------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const apiKey = () => sessionStorage.getItem(KEY_STORAGE);

function apiURL(path, query = {}) {
  const url = new URL(`/v1${path}`, location.origin);
  for (const [name, value] of Object.entries(query)) {
    if (value != null) url.searchParams.set(name, String(value));
  }
  return url;
}

function request(accept, signal) {
  return {
    headers: { Authorization: `Bearer ${apiKey()}`, 'OpenAI-Beta': 'agents=v1', Accept: accept },
    cache: 'no-store',
    credentials: 'omit',
    signal,
  };
}

async function failure(response) {
  const body = await response.json().catch(() => null);
  return new ApiError(response.status, body?.error?.message ?? `HTTP ${response.status}`);
}

async function getJSON(path, query) {
  const response = await fetch(apiURL(path, query), request('application/json'));
  if (!response.ok) throw await failure(response);
  return response.json();
}

/** Every row of a cursor-paged list, oldest first where `order` allows. */
async function listAll(path, query = {}) {
  const rows = [];
  let after;
  for (;;) {
    const page = await getJSON(path, { ...query, limit: 100, after });
    rows.push(...page.data);
    after = page.data.at(-1)?.id ?? page.last_id;
    if (!page.has_more || !after) return rows;
  }
}

/** Feeds `text/event-stream` text in; calls `dispatch` with each frame's data (WHATWG rules). */
function sseParser(dispatch) {
  let buffer = '';
  let data = [];
  return (chunk) => {
    buffer += chunk;
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      if (end < 0) return;
      // A \r at the very end may be the first half of a \r\n still in flight.
      if (buffer[end] === '\r' && end === buffer.length - 1) return;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (data.length) dispatch(data.join('\n'));
        data = [];
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') data.push(value);
      }
    }
  };
}

// --- formatting -----------------------------------------------------------------------------

const utc = (date) => date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
const unixTime = (seconds) => (seconds == null ? '—' : utc(new Date(seconds * 1000)));
const clock = (ms) => new Date(ms).toISOString().slice(11, 23);

function placement(environment) {
  switch (environment?.type) {
    case 'none':
      return 'no workspace';
    case 'openai_hosted':
      return `managed workspace ${environment.id ?? ''}`.trim();
    case 'self_hosted':
      return `self-hosted ${environment.id ?? ''} ${environment.workspace_directory ?? ''}`.trim();
    default:
      return environment?.type ?? '—';
  }
}

function usageText(usage) {
  if (!usage) return '—';
  const cached = usage.input_tokens_details?.cached_tokens;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return (
    `${usage.input_tokens} in${cached ? ` (${cached} cached)` : ''} · ` +
    `${usage.output_tokens} out${reasoning ? ` (${reasoning} reasoning)` : ''} · ${usage.total_tokens} total`
  );
}

/** JSON text pretty-printed when it parses, as given otherwise. */
function pretty(value) {
  if (value == null) return '';
  if (typeof value !== 'string') return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

/** The text of message content or tool output parts. */
function partsText(parts) {
  if (parts == null) return '';
  if (typeof parts === 'string') return parts;
  if (!Array.isArray(parts)) return pretty(parts);
  return parts
    .map((p) => p.text ?? (p.type === 'input_image' ? '[image]' : p.type === 'encrypted_content' ? '[encrypted]' : pretty(p)))
    .join('\n');
}

const badge = (status) => el('span', { class: `badge status-${status ?? 'unknown'}` }, status ?? '—');

// --- views ----------------------------------------------------------------------------------

const SECTIONS = ['login', 'sessions', 'session'];
function show(section) {
  for (const s of SECTIONS) $(s).hidden = s !== section;
  $('forget-key').hidden = section === 'login';
}

function showLogin(message = '') {
  closeSession();
  show('login');
  $('login-error').textContent = message;
  $('key-input').focus();
}

/** An API failure in a view: a refused key sends the user back to the key form. */
function handle(error, target) {
  if (error instanceof ApiError && error.status === 401) {
    sessionStorage.removeItem(KEY_STORAGE);
    showLogin(`The key was refused: ${error.message}`);
    return true;
  }
  $(target).textContent = error.message;
  return false;
}

// Sessions list.

let sessionsAfter = null;

function sessionRow(s) {
  return el(
    'tr',
    { dataset: { sessionId: s.id } },
    el('td', {}, el('a', { href: `#/sessions/${encodeURIComponent(s.id)}` }, s.id)),
    el('td', {}, badge(s.status)),
    el('td', {}, s.x_agents_core?.harness ?? '—'),
    el('td', {}, s.agent?.model ?? '—'),
    el('td', {}, placement(s.environment)),
    el('td', {}, unixTime(s.last_active_at)),
    el('td', {}, unixTime(s.created_at)),
  );
}

async function loadSessions(more = false) {
  $('sessions-error').textContent = '';
  try {
    const page = await getJSON('/agents/sessions', { limit: 100, after: more ? sessionsAfter : null });
    const rows = page.data.map(sessionRow);
    if (more) $('session-rows').append(...rows);
    else $('session-rows').replaceChildren(...rows);
    sessionsAfter = page.data.at(-1)?.id ?? null;
    $('more-sessions').hidden = !page.has_more;
    $('sessions-empty').hidden = $('session-rows').childElementCount > 0;
    return true;
  } catch (error) {
    handle(error, 'sessions-error');
    return false;
  }
}

async function showSessions() {
  closeSession();
  show('sessions');
  await loadSessions();
}

// One Session, kept current from its event stream.

let view = null;

function closeSession() {
  if (!view) return;
  view.closed = true;
  view.abort.abort();
  clearTimeout(view.retryTimer);
  view = null;
}

function newTurnState(turn) {
  return { turn, items: new Map(), timeline: new Map() };
}

function turnState(v, turnId) {
  if (!turnId) return null;
  let t = v.turns.get(turnId);
  if (!t) {
    t = newTurnState({ id: turnId, status: null });
    v.turns.set(turnId, t);
  }
  return t;
}

// Timeline entries, by kind: queued, started, each call/receipt/pending action, terminal.
const RANK = { queued: 0, started: 1, step: 2, terminal: 3 };

/** Adds (or completes) a timeline entry. `at` is a unix time from the API; `seen` the local
 * time the live stream brought the event, when it did. */
function mark(t, key, rank, label, { at = null, seen = null } = {}) {
  if (!t) return;
  const entry = t.timeline.get(key) ?? { rank, label, at: null, seen: null };
  entry.label = label;
  entry.at ??= at;
  entry.seen ??= seen;
  t.timeline.set(key, entry);
}

function markTurn(t, seen = null) {
  const turn = t.turn;
  if (turn.created_at != null || seen) mark(t, 'queued', RANK.queued, 'queued', { at: turn.created_at, seen: turn.status === 'queued' ? seen : null });
  if (turn.started_at != null || (seen && turn.status === 'in_progress')) {
    mark(t, 'started', RANK.started, 'started', { at: turn.started_at, seen: turn.status === 'in_progress' ? seen : null });
  }
  if (TERMINAL.has(turn.status)) {
    const why = turn.error ? `: ${turn.error.code ?? ''} ${turn.error.message ?? ''}` : '';
    mark(t, 'terminal', RANK.terminal, `${turn.status}${why}`, { at: turn.completed_at, seen });
  }
}

function markItem(t, item, done, seen = null) {
  const status = item.status ? ` · ${item.status}` : '';
  switch (item.type) {
    case 'function_call':
      mark(t, `call:${item.call_id}`, RANK.step, `function call ${item.name} (${item.call_id})`, { seen });
      break;
    case 'function_call_output': {
      const result = item.error != null ? `error: ${item.error}` : 'success';
      mark(t, `receipt:${item.call_id}`, RANK.step, `result received for ${item.call_id} (${result})`, { seen });
      break;
    }
    case 'mcp_call':
    case 'command_execution':
    case 'web_search_call': {
      const what = {
        mcp_call: () => `MCP call ${item.server_label}.${item.name}`,
        command_execution: () => `command ${item.command}`,
        web_search_call: () => `web search ${item.action?.query ?? item.action?.url ?? ''}`.trim(),
      }[item.type]();
      mark(t, `call:${item.id}`, RANK.step, what, { seen: done ? null : seen });
      if (done || TERMINAL.has(item.status)) mark(t, `receipt:${item.id}`, RANK.step, `${what} ended${status}`, { seen });
      break;
    }
    default:
      break;
  }
}

function itemKey(t, item) {
  return item.id ?? `${item.type}:${item.call_id ?? t.items.size}`;
}

function upsertItem(v, item, turnId, done, seen) {
  const t = turnState(v, turnId ?? item.turn_id);
  if (!t) return;
  t.items.set(itemKey(t, item), item);
  markItem(t, item, done, seen);
}

/** The Turn object an event or a list carries. Events arrive in order, so the last one wins. */
function upsertTurn(v, turn, seen) {
  const t = turnState(v, turn.id);
  t.turn = { ...t.turn, ...turn };
  markTurn(t, seen);
}

function findItem(v, turnId, itemId) {
  for (const [id, t] of v.turns) {
    if (turnId && id !== turnId) continue;
    const item = t.items.get(itemId);
    if (item) return item;
  }
  return null;
}

function markRequiredActions(v, seen) {
  for (const action of v.session?.required_actions ?? []) {
    const t = turnState(v, action.turn_id);
    const id = action.call_id ?? action.request_id ?? action.environment_id;
    mark(t, `pending:${id}`, RANK.step, `waits for the application: ${action.type}${action.name ? ` ${action.name}` : ''} (${id})`, { seen });
  }
}

/** One live event. Snapshots replace what was read; items and turns are upserted. */
function apply(v, event, seen) {
  if (event.session?.id === v.id) {
    v.session = event.session;
    markRequiredActions(v, seen);
  }
  if (event.turn) upsertTurn(v, event.turn, seen);
  const turnId = event.turn_id ?? event.turn?.id ?? event.item?.turn_id;
  switch (event.type) {
    case 'agent.session.turn.completed':
    case 'agent.session.turn.failed':
    case 'agent.session.turn.cancelled':
      if (event.usage) turnState(v, turnId).turn.usage = event.usage;
      break;
    case 'agent.session.turn.item.added':
    case 'agent.session.turn.item.done':
      upsertItem(v, event.item, turnId, event.type.endsWith('.done'), seen);
      break;
    case 'agent.session.turn.output_text.delta': {
      const item = findItem(v, turnId, event.item_id);
      if (item) {
        item.content ??= [];
        const part = (item.content[event.content_index ?? 0] ??= { type: 'output_text', text: '' });
        part.text = (part.text ?? '') + event.delta;
      }
      break;
    }
    case 'agent.output.command_execution_output.delta': {
      const item = findItem(v, turnId, event.item_id);
      if (item) item.output = (item.output ?? '') + event.delta;
      break;
    }
    case 'error':
      $('session-error').textContent = `stream error: ${event.error?.message ?? 'unknown'}`;
      break;
    default:
      break;
  }
}

async function loadSnapshot(v) {
  const path = `/agents/sessions/${encodeURIComponent(v.id)}`;
  const [session, turns, items] = await Promise.all([
    getJSON(path),
    listAll(`${path}/turns`, { order: 'asc' }),
    listAll(`${path}/items`, { order: 'asc' }),
  ]);
  v.session = session;
  v.turns = new Map();
  for (const turn of turns) upsertTurn(v, turn);
  for (const item of items) upsertItem(v, item, item.turn_id, TERMINAL.has(item.status));
  markRequiredActions(v);
}

function setStreamState(state, text) {
  const node = $('stream-state');
  node.dataset.state = state;
  node.textContent = text;
}

/** Subscribes, then reads the snapshot: an event published between the two is seen either
 * way. Events that arrive during the read wait, then apply in order. The stream is live only,
 * so every reconnection reads the snapshot again. */
async function connect(v) {
  setStreamState('connecting', 'connecting…');
  const pending = [];
  let loaded = false;
  const onData = (data) => {
    let event;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    const seen = Date.now();
    if (!loaded) pending.push([event, seen]);
    else {
      apply(v, event, seen);
      scheduleRender(v);
    }
  };
  try {
    const response = await fetch(
      apiURL(`/agents/sessions/${encodeURIComponent(v.id)}/events`, { include_obfuscation: false }),
      request('text/event-stream', v.abort.signal),
    );
    if (!response.ok) throw await failure(response);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const feed = sseParser(onData);
    const pumping = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        feed(value);
      }
    })();
    pumping.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    await loadSnapshot(v);
    loaded = true;
    for (const [event, seen] of pending.splice(0)) apply(v, event, seen);
    v.retries = 0;
    $('session-error').textContent = '';
    setStreamState('live', 'live');
    render(v);
    await pumping;
    if (v.closed) return;
    reconnect(v, 'the stream ended');
  } catch (error) {
    if (v.closed) return;
    if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
      v.abort.abort();
      setStreamState('closed', 'closed');
      handle(error, 'session-error');
      if (v.session) render(v);
      return;
    }
    reconnect(v, error.message);
  }
}

function reconnect(v, why) {
  const delay = Math.min(1000 * 2 ** v.retries, 10_000);
  v.retries += 1;
  setStreamState('reconnecting', `reconnecting in ${delay / 1000} s (${why})`);
  v.abort.abort();
  v.abort = new AbortController();
  v.retryTimer = setTimeout(() => connect(v), delay);
}

function showSession(id) {
  closeSession();
  show('session');
  $('session-title').textContent = id;
  for (const node of ['session-facts', 'required-actions', 'turns']) $(node).replaceChildren();
  $('session-error').textContent = '';
  view = { id, abort: new AbortController(), session: null, turns: new Map(), retries: 0, closed: false, frame: 0 };
  connect(view);
}

// Rendering one Session.

function scheduleRender(v) {
  if (v.frame) return;
  v.frame = requestAnimationFrame(() => {
    v.frame = 0;
    if (!v.closed) render(v);
  });
}

function fact(name, value) {
  return [el('dt', {}, name), el('dd', { dataset: { fact: name } }, value)];
}

function renderFacts(s) {
  $('session-facts').replaceChildren(
    ...fact('status', badge(s.status)),
    ...fact('harness', s.x_agents_core?.harness ?? 'not shown by the API'),
    ...fact('model', s.agent?.model ?? '—'),
    ...fact('agent', s.agent?.id ?? 'inline'),
    ...fact('placement', placement(s.environment)),
    ...fact('created', unixTime(s.created_at)),
    ...fact('last active', unixTime(s.last_active_at)),
    ...fact('usage', usageText(s.usage)),
    ...(s.error ? fact('error', s.error) : []),
  );
}

function renderRequiredActions(s) {
  const actions = s.required_actions ?? [];
  $('required-actions').replaceChildren(
    ...actions.map((a) => {
      const id = a.call_id ?? a.request_id ?? a.environment_id;
      const detail =
        a.type === 'function_call'
          ? [el('strong', {}, a.name), ' ', el('code', {}, id), el('pre', {}, pretty(a.arguments))]
          : a.type === 'mcp_approval_request'
            ? [el('strong', {}, `${a.request?.server_label}.${a.request?.name ?? ''}`), ' ', el('code', {}, id), el('pre', {}, pretty(a.request?.arguments))]
            : a.type === 'environment_connection'
              ? ['waiting for environment ', el('code', {}, id), ' to connect']
              : [el('code', {}, id), el('pre', {}, pretty(a.request ?? a))];
      return el('li', { class: 'action', dataset: { type: a.type, id } }, badge(a.type), ' ', detail, el('span', { class: 'hint' }, ` turn ${a.turn_id ?? '—'}`));
    }),
  );
  $('required-actions-empty').hidden = actions.length > 0;
}

function field(name, value) {
  if (value == null || value === '') return null;
  return el('div', { class: 'field' }, el('span', { class: 'name' }, name), el('pre', {}, value));
}

function renderItem(item) {
  const head = [badge(item.type), item.status ? ` ${item.status}` : ''];
  let body;
  switch (item.type) {
    case 'message':
      head.push(` · ${item.role}${item.phase ? ` (${item.phase})` : ''}`);
      body = [el('p', { class: 'text' }, partsText(item.content))];
      break;
    case 'reasoning':
      body = [el('p', { class: 'text' }, partsText(item.summary) || '(no summary)')];
      break;
    case 'function_call':
      head.push(' · ', el('strong', {}, item.name), ' ', el('code', {}, item.call_id));
      body = [field('arguments', pretty(item.arguments))];
      break;
    case 'function_call_output':
      head.push(' · for ', el('code', {}, item.call_id));
      body = [field('output', pretty(partsText(item.output))), field('error', item.error)];
      break;
    case 'mcp_call':
      head.push(' · ', el('strong', {}, `${item.server_label}.${item.name}`));
      body = [field('arguments', pretty(item.arguments)), field('output', pretty(partsText(item.output))), field('error', item.error)];
      break;
    case 'command_execution':
      head.push(' · ', el('code', {}, item.command));
      body = [
        field('cwd', item.cwd),
        field('exit code', item.exit_code == null ? null : String(item.exit_code)),
        field('duration', item.duration_ms == null ? null : `${item.duration_ms} ms`),
        field('output', item.output),
      ];
      break;
    case 'web_search_call':
      body = [field('action', item.action ? pretty(item.action) : null)];
      break;
    default:
      body = [el('pre', {}, pretty(item))];
  }
  return el('article', { class: `item item-${item.type}`, dataset: { itemType: item.type, itemId: item.id ?? '' } }, el('header', {}, head), body);
}

function renderTimeline(t) {
  const entries = [...t.timeline.values()].sort((a, b) => a.rank - b.rank);
  return el(
    'ol',
    { class: 'timeline' },
    entries.map((e) =>
      el(
        'li',
        {},
        el('time', {}, e.at != null ? unixTime(e.at) : e.seen != null ? `seen ${clock(e.seen)}` : '—'),
        ' ',
        e.label,
      ),
    ),
  );
}

function renderTurn(t) {
  const turn = t.turn;
  const error = turn.error ? `${turn.error.code ?? ''}: ${turn.error.message ?? ''}` : null;
  return el(
    'section',
    { class: 'turn', dataset: { turnId: turn.id, status: turn.status ?? '' } },
    el(
      'header',
      {},
      el('h4', {}, 'Turn ', el('code', {}, turn.id)),
      ' ',
      badge(turn.status),
      el('span', { class: 'hint' }, ` usage ${usageText(turn.usage)}`),
      turn.subagent_id ? el('span', { class: 'hint' }, ` subagent ${turn.subagent_id}`) : null,
    ),
    error ? el('p', { class: 'error' }, error) : null,
    el('div', { class: 'turn-body' }, el('div', { class: 'items' }, [...t.items.values()].map(renderItem)), renderTimeline(t)),
  );
}

function render(v) {
  if (!v.session) return;
  renderFacts(v.session);
  renderRequiredActions(v.session);
  const turns = [...v.turns.values()].sort((a, b) => (a.turn.created_at ?? Infinity) - (b.turn.created_at ?? Infinity));
  $('turns').replaceChildren(...turns.map(renderTurn));
}

// --- routing and the key --------------------------------------------------------------------

function route() {
  if (!apiKey()) return showLogin();
  const match = location.hash.match(/^#\/sessions\/(.+)$/);
  if (match) showSession(decodeURIComponent(match[1]));
  else showSessions();
}

$('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = $('key-input').value.trim();
  $('key-input').value = '';
  if (!key) return;
  sessionStorage.setItem(KEY_STORAGE, key);
  $('login-error').textContent = '';
  route();
});
$('forget-key').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_STORAGE);
  showLogin();
});
$('refresh-sessions').addEventListener('click', () => loadSessions());
$('more-sessions').addEventListener('click', () => loadSessions(true));
window.addEventListener('hashchange', route);
route();
