// A 2025-11-25 MCP server on the TypeScript SDK's experimental tasks (SEP-1686), over stdio: the
// interop peer for our client's experimental-tasks path. Run with the node_modules that
// ops/ci/install-node-peers fills (the SDK is loaded from there, not from beside this file):
//   node ops/ci/peers/task-server.mjs --peers=.ci/cache/node-peers [--events=FILE]
// Tools: `slow` ({ms}) runs as a task (taskSupport "required") that completes after ms
// milliseconds with the text "slow done after <ms> ms"; `echo` ({text}) is a plain call.
// --events appends one JSON line per task created, finished or cancelled, so a test can count
// what the server itself saw.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const flag = (name) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? undefined : a.slice(name.length + 3);
};
const peers = resolve(flag('peers') ?? process.env.FLOWS_NODE_PEERS ?? '.ci/cache/node-peers');
const events = flag('events');
const require = createRequire(join(peers, 'package.json'));
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { InMemoryTaskStore } = require('@modelcontextprotocol/sdk/experimental/tasks');
const { z } = require('zod');

const log = (event) => {
  if (events !== undefined) {
    appendFileSync(events, JSON.stringify({ at: Date.now(), ...event }) + '\n');
  }
};

const taskStore = new InMemoryTaskStore();
const server = new McpServer(
  { name: 'flows-ts-task-peer', version: '1.0.0' },
  { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore }
);

server.experimental.tasks.registerToolTask(
  'slow',
  {
    description: 'Runs as a task for ms milliseconds',
    inputSchema: { ms: z.number().int().min(0) },
    execution: { taskSupport: 'required' },
  },
  {
    async createTask({ ms }, { taskStore: store, taskRequestedTtl }) {
      const task = await store.createTask({ ttl: taskRequestedTtl ?? 600000, pollInterval: 50 });
      log({ event: 'task.created', taskId: task.taskId, ms });
      setTimeout(async () => {
        try {
          const now = await store.getTask(task.taskId);
          if (now && now.status === 'working') {
            await store.storeTaskResult(task.taskId, 'completed', {
              content: [{ type: 'text', text: `slow done after ${ms} ms` }],
            });
            log({ event: 'task.completed', taskId: task.taskId });
          } else {
            log({ event: 'task.ended', taskId: task.taskId, status: now?.status ?? 'unknown' });
          }
        } catch (e) {
          log({ event: 'task.ended', taskId: task.taskId, error: String(e) });
        }
      }, ms);
      return { task };
    },
    async getTask(_args, { taskId, taskStore: store }) {
      return await store.getTask(taskId);
    },
    async getTaskResult(_args, { taskId, taskStore: store }) {
      return await store.getTaskResult(taskId);
    },
  }
);

server.registerTool(
  'echo',
  { description: 'Echoes text', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] })
);

// Our client closes stdin to stop a stdio server: exit then.
process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
