// Agents through the official TypeScript SDK: what is created is what is retrieved.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Engine, WEATHER_FUNCTION } from './support.ts';

let engine: Engine;
before(async () => {
  engine = await Engine.start();
});
after(async () => {
  await engine?.stop();
});

test('an Agent created is retrieved unchanged', async () => {
  const agents = engine.client.beta.agents;
  const created = await agents.create({
    model: 'gpt-test',
    name: 'weather',
    instructions: 'Answer briefly.',
    tools: [WEATHER_FUNCTION],
    metadata: { team: 'ts' },
  });
  assert.match(created.id, /^agent_/);
  assert.equal(created.model, 'gpt-test');
  assert.equal(created.name, 'weather');
  assert.equal(created.instructions, 'Answer briefly.');
  assert.deepEqual(created.metadata, { team: 'ts' });
  assert.equal(created.tools.length, 1);
  const [tool] = created.tools;
  assert.equal(tool.type, 'function');
  assert.equal((tool as typeof WEATHER_FUNCTION).name, 'get_weather');
  // The function's saved defaults are explicit on the resource.
  assert.equal((tool as { defer_loading?: boolean }).defer_loading, false);

  const retrieved = await agents.retrieve(created.id);
  assert.deepEqual(retrieved, created);
});
