// What every test in the TypeScript suite needs: a real `switchboard serve` on an ephemeral port
// (its Runtime runs the pinned codex) with the mock model as its model provider, and the official
// `openai` SDK pointed at it. The same shape as tests/sdk/conftest.py's Engine.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const API_KEY = 'sk-sb-ts-suite-key';

export const WEATHER_FUNCTION = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

function switchboardBin(): string {
  return process.env.SWITCHBOARD_BIN ?? path.join(ROOT, 'target', 'debug', 'switchboard');
}

/** A child process whose first stdout line is its URL (both commands flush it before serving). */
class Child {
  readonly proc: ChildProcessWithoutNullStreams;
  #stderr = '';

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.proc = spawn(switchboardBin(), args, { env, stdio: 'pipe' });
    this.proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr += chunk;
    });
  }

  firstLine(): Promise<string> {
    const lines = createInterface({ input: this.proc.stdout });
    return new Promise((resolve, reject) => {
      lines.once('line', resolve);
      this.proc.once('exit', (code) =>
        reject(new Error(`${this.proc.spawnargs.join(' ')} exited ${code}:\n${this.#stderr}`)),
      );
    });
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise((resolve) => this.proc.once('exit', resolve));
    this.proc.kill('SIGTERM');
    await exited;
  }
}

/** Polls `/readyz` (a condition, not a sleep) until the local Runtime has advertised. */
async function waitReady(root: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await fetch(`${root}/readyz`);
    if (response.status === 200) return;
    if (response.status !== 503) throw new Error(`/readyz answered ${response.status}`);
    if (Date.now() > deadline) throw new Error('the local Runtime never advertised its harnesses');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The mock model plus a server whose deployment model providers are that mock. */
export class Engine {
  readonly client: OpenAI;
  readonly baseURL: string;
  readonly #children: Child[];
  readonly #dir: string;

  private constructor(client: OpenAI, baseURL: string, children: Child[], dir: string) {
    this.client = client;
    this.baseURL = baseURL;
    this.#children = children;
    this.#dir = dir;
  }

  static async start(): Promise<Engine> {
    const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-ts-'));
    const children: Child[] = [];
    try {
      const mock = new Child(
        ['mock-model', '--listen', '127.0.0.1:0', '--journal', path.join(dir, 'journal.jsonl')],
        process.env,
      );
      children.push(mock);
      const mockURL = (await mock.firstLine()).trim();
      const server = new Child(
        [
          'serve',
          '--listen',
          '127.0.0.1:0',
          '--data-dir',
          path.join(dir, 'data'),
          '--model-provider-url',
          `${mockURL}/v1`,
          '--model-provider-key',
          'mock-key',
          '--anthropic-provider-url',
          mockURL,
          '--anthropic-provider-key',
          'mock-key',
        ],
        { ...process.env, SWITCHBOARD_API_KEY: API_KEY },
      );
      children.push(server);
      const line = await server.firstLine();
      const baseURL = line.trim().split(/\s+/).pop()!;
      if (!baseURL.startsWith('http://')) throw new Error(`unexpected first line from serve: ${line}`);
      await waitReady(baseURL.replace(/\/v1$/, ''));
      const client = new OpenAI({ baseURL, apiKey: API_KEY, maxRetries: 0 });
      return new Engine(client, baseURL, children, dir);
    } catch (error) {
      await Promise.all(children.map((c) => c.stop()));
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.#children.map((c) => c.stop()));
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

type Session = Awaited<ReturnType<OpenAI['beta']['agents']['sessions']['retrieve']>>;

/** The Session once `done` holds: read after subscribing to its live events, so a change
 * published between the two is seen either way. */
export async function waitForSession(
  client: OpenAI,
  sessionID: string,
  done: (session: Session) => boolean,
): Promise<Session> {
  const sessions = client.beta.agents.sessions;
  const stream = await sessions.events.stream(sessionID);
  try {
    const current = await sessions.retrieve(sessionID);
    if (done(current)) return current;
    for await (const event of stream) {
      const seen = (event as { session?: Session }).session;
      if (seen && done(seen)) return seen;
    }
    throw new Error(`the event stream of ${sessionID} ended first`);
  } finally {
    stream.controller.abort();
  }
}
