// A 2025-11-25 MCP server on the TypeScript SDK's experimental tasks (SEP-1686), over stdio or
// Streamable HTTP: the interop peer for our client's experimental-tasks path. Run with the
// node_modules that ops/ci/install-node-peers fills (the SDK is loaded from there, not from beside
// this file):
//   node ops/ci/peers/task-server.mjs --peers=.ci/cache/node-peers [--events=FILE] [--http=PORT]
// --http serves stateless Streamable HTTP on 127.0.0.1:PORT (0: a free port) at /mcp and prints
// its URL as the first stdout line. Stateless, so a task belongs to no session: any client (a
// second worker after the first died) can poll it, while this one process keeps the tasks.
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
const http = flag('http');
const require = createRequire(join(peers, 'package.json'));
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { InMemoryTaskStore } = require('@modelcontextprotocol/sdk/experimental/tasks');
const { z } = require('zod');

const log = (event) => {
  if (events !== undefined) {
    appendFileSync(events, JSON.stringify({ at: Date.now(), ...event }) + '\n');
  }
};

const taskStore = new InMemoryTaskStore();

// One server per stdio process, or per HTTP request (the SDK's stateless mode), all on one store.
const newServer = () => {
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
        // Over HTTP the request's server is gone by then: finish on the shared store (no
        // notifications/tasks/status; clients poll).
        const finish = http === undefined ? store : taskStore;
        setTimeout(async () => {
          try {
            const now = await finish.getTask(task.taskId);
            if (now && now.status === 'working') {
              await finish.storeTaskResult(task.taskId, 'completed', {
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
  return server;
};

if (http === undefined) {
  // Our client closes stdin to stop a stdio server: exit then.
  process.stdin.on('end', () => process.exit(0));
  await newServer().connect(new StdioServerTransport());
} else {
  const { createServer } = await import('node:http');
  const listener = createServer(async (req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (e) {
      if (!res.headersSent) {
        res.writeHead(500).end(String(e));
      }
    }
  });
  listener.listen(Number(http), '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${listener.address().port}/mcp`);
  });
}
