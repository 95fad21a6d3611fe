// Sessions through the official TypeScript SDK, on the real codex harness against the mock
// model: the SDK's own tool-handler loop, the manual required-action path, and an error envelope
// read as the SDK's typed error.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { Engine, WEATHER_FUNCTION, waitForSession } from './support.ts';

let engine: Engine;
before(async () => {
  engine = await Engine.start();
});
after(async () => {
  await engine?.stop();
});

const AGENT = { model: 'gpt-test', tools: [WEATHER_FUNCTION] };

test('create(stream) and sessions.stream with toolHandlers run the function; finalResult() has the answer', async () => {
  const sessions = engine.client.beta.agents.sessions;
  // The creation stream runs the first Turn with the SDK's handler loop; sessions.stream then
  // starts the next Turn on the idle Session.
  const session = await sessions.create({
    environment: { type: 'none' },
    agent: AGENT,
    input: 'Hello',
    stream: true,
    toolHandlers: { get_weather: () => ({ warmup: true }) },
  });
  const warmup = await session.finalResult();
  assert.equal(warmup.turn.status, 'completed');
  assert.equal(warmup.output_text, 'FINAL: {"warmup":true}');

  const calls: Record<string, unknown>[] = [];
  const stream = sessions.stream(warmup.session_id, {
    input: 'What is the weather in Paris?',
    toolHandlers: {
      get_weather: (args) => {
        calls.push(args);
        return { temp: 21 };
      },
    },
  });
  const result = await stream.finalResult();
  assert.equal(result.turn.status, 'completed');
  assert.notEqual(result.turn_id, warmup.turn_id);
  // The mock's default answer quotes the function output it received.
  assert.equal(result.output_text, 'FINAL: {"temp":21}');
  assert.deepEqual(calls, [{ city: '' }]);

  const idle = await sessions.retrieve(warmup.session_id);
  assert.equal(idle.status, 'idle');
  assert.deepEqual(idle.required_actions, []);
  const items = [];
  for await (const item of sessions.turns.items.list(result.turn_id, {
    session_id: warmup.session_id,
    order: 'asc',
  })) {
    items.push(item);
  }
  assert.deepEqual(
    items.map((i) => i.type),
    ['message', 'function_call', 'function_call_output', 'message'],
  );
  assert.equal((items[2] as { output?: unknown }).output, '{"temp":21}');
});

test('a manual tool_result answers the required action', async () => {
  const sessions = engine.client.beta.agents.sessions;
  const session = await sessions.create({
    environment: { type: 'none' },
    agent: AGENT,
    input: 'What is the weather in Paris?',
  });
  const waiting = await waitForSession(engine.client, session.id, (s) => s.required_actions.length > 0);
  assert.equal(waiting.status, 'requires_action');
  assert.equal(waiting.required_actions.length, 1);
  const [action] = waiting.required_actions;
  assert.deepEqual(
    { ...action, call_id: undefined, turn_id: undefined },
    { arguments: '{"city":""}', call_id: undefined, name: 'get_weather', turn_id: undefined, type: 'function_call' },
  );
  assert.ok(action.type === 'function_call');

  const accepted = await sessions.events
    .create(session.id, {
      events: [
        {
          type: 'agent.session.input.tool_result',
          turn_id: action.turn_id,
          call_id: action.call_id,
          success: true,
          output: 'sunny 21C',
        },
      ],
    })
    .withResponse();
  assert.equal(accepted.response.status, 202);

  const idle = await waitForSession(engine.client, session.id, (s) => s.status === 'idle');
  assert.deepEqual(idle.required_actions, []);
  assert.equal(idle.error, null);
  const turn = await sessions.turns.retrieve(action.turn_id, { session_id: session.id });
  assert.equal(turn.status, 'completed');
  const items = [];
  for await (const item of sessions.items.list(session.id, { order: 'asc' })) items.push(item);
  const output = items.find((i) => i.type === 'function_call_output') as { call_id: string; output: unknown };
  assert.equal(output.call_id, action.call_id);
  assert.equal(output.output, 'sunny 21C');
  const answer = items.at(-1) as { type: string; content: { text: string }[] };
  assert.equal(answer.type, 'message');
  assert.equal(answer.content[0].text, 'FINAL: sunny 21C');
});

test('an error envelope is read as the SDK typed error', async () => {
  const sessions = engine.client.beta.agents.sessions;
  const message = "The harness does not support service_tier 'priority'.";
  const listed = async () => (await sessions.list({ limit: 100 })).data.map((s) => s.id);
  const before = await listed();
  await assert.rejects(
    sessions.create({
      environment: { type: 'none' },
      agent: { model: 'gpt-test', service_tier: 'priority' },
      input: 'Hello',
    }),
    (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.code, 'unsupported_or_invalid_configuration');
      assert.equal(error.param, 'agent.service_tier');
      assert.equal(error.message, `400 ${message}`);
      assert.deepEqual(error.error, {
        message,
        type: 'invalid_request_error',
        param: 'agent.service_tier',
        code: 'unsupported_or_invalid_configuration',
      });
      return true;
    },
  );
  // Rejected at admission: nothing was written.
  assert.deepEqual(await listed(), before);
});
