// An MCP client for the tests of `ptypilot mcp`: the SDK's Client spawning
// bin/ptypilot.js over stdio, with the server's stderr kept, the log messages
// it sends collected, and calls answered as `{ text, isError }`. A client may
// declare capabilities (elicitation) and answer the server's requests.
import { expect } from 'vitest'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema, LoggingMessageNotificationSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'

export const BIN = join(__dirname, '..', 'bin', 'ptypilot.js')

export type Reply = { text: string; isError: boolean }

export interface Served {
  client: Client
  pid: number
  stderr: () => string
  /** The log messages (`notifications/message`) the server sent: their `data`. */
  logs: unknown[]
  call(name: string, args: Record<string, unknown>, options?: Parameters<Client['callTool']>[2]): Promise<Reply>
  close(): Promise<void>
}

export interface ServeOptions {
  /** Added to this process's environment; a variable set to `undefined` is left out. */
  env?: Record<string, string | undefined>
  cwd?: string
  /** Answers the server's elicitations; the client then declares the capability. */
  elicit?: (params: { message: string; requestedSchema: unknown }) => ElicitResult | Promise<ElicitResult>
}

export async function serveMcp(args: string[], options: ServeOptions = {}): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: Object.fromEntries(
      Object.entries({ ...process.env, ...options.env }).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    cwd: options.cwd,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (d) => (stderr += d))
  const client = new Client(
    { name: 'ptypilot-test', version: '0.0.0' },
    { capabilities: options.elicit === undefined ? {} : { elicitation: {} } },
  )
  const logs: unknown[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params.data)
  })
  const elicit = options.elicit
  if (elicit !== undefined) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params as never))
  await client.connect(transport)
  return {
    client,
    pid: transport.pid!,
    stderr: () => stderr,
    logs,
    async call(name, args, callOptions) {
      const result = await client.callTool({ name, arguments: args }, undefined, callOptions)
      const content = result.content as Array<{ type: string; text: string }>
      expect(content.every((c) => c.type === 'text')).toBe(true)
      return { text: content.map((c) => c.text).join('\n'), isError: result.isError === true }
    },
    close: () => client.close(),
  }
}
