// definitions() typed for the real provider SDKs: this file is compiled by
// `tsc -p tsconfig.json` (strict) and passes every format into the SDK's own
// parameter types without a cast; the `@ts-expect-error` lines prove the types
// are checked (a wrong format does not fit). At run time it checks the shapes
// the types promise. No request is sent.
import { describe, it, expect, afterAll } from 'vitest'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { FunctionTool, ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses'
import { ToolRegistry, gitTool, terminalTools, type McpToolDefinition, type ModelReply } from '../index.js'

const registry = new ToolRegistry()
registry.register(gitTool())
registry.register(terminalTools())
afterAll(() => registry.abortAll())

// Anthropic Messages API.
const anthropicTools: Anthropic.Messages.Tool[] = registry.definitions('anthropic')
const anthropicDefault: Anthropic.Messages.Tool[] = registry.definitions()
const anthropicRequest: Anthropic.Messages.MessageCreateParamsNonStreaming = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  tools: registry.definitions('anthropic'),
  messages: [{ role: 'user', content: 'Stage the first hunk.' }],
}
// @ts-expect-error: the OpenAI shape is not an Anthropic tool
const notAnthropic: Anthropic.Messages.Tool[] = registry.definitions('openai')

// OpenAI Chat Completions.
const chatTools: ChatCompletionTool[] = registry.definitions('openai')
const chatToolsNs: OpenAI.Chat.Completions.ChatCompletionTool[] = registry.definitions('openai')
const chatRequest: ChatCompletionCreateParamsNonStreaming = {
  model: 'gpt-4.1',
  messages: [{ role: 'user', content: 'Run the tests.' }],
  tools: registry.definitions('openai'),
}
// @ts-expect-error: the Responses shape has no `function` member
const notChat: ChatCompletionTool[] = registry.definitions('openai-responses')

// OpenAI Responses API.
const responsesTools: FunctionTool[] = registry.definitions('openai-responses')
const responsesRequest: ResponseCreateParamsNonStreaming = {
  model: 'gpt-4.1',
  input: 'Run the tests.',
  tools: registry.definitions('openai-responses'),
}
// @ts-expect-error: the Anthropic shape is not a Responses function tool
const notResponses: FunctionTool[] = registry.definitions('anthropic')

// MCP tools/list entries.
const mcpTools: McpToolDefinition[] = registry.definitions('mcp')

/** What an agent loop sends back for one Anthropic tool_use block. */
async function anthropicToolResult(block: Anthropic.Messages.ToolUseBlock): Promise<Anthropic.Messages.ToolResultBlockParam> {
  const reply: ModelReply = await registry.respond(block.name, block.input)
  return { type: 'tool_result', tool_use_id: block.id, content: reply.text, is_error: reply.isError }
}

/** What an agent loop sends back for one OpenAI tool call (arguments are a JSON string). */
async function openaiToolMessage(call: OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall): Promise<OpenAI.Chat.Completions.ChatCompletionToolMessageParam> {
  const reply = await registry.respond(call.function.name, call.function.arguments)
  return { role: 'tool', tool_call_id: call.id, content: reply.text }
}

describe('definitions() fit the SDK types', () => {
  const names = ['git', 'pty_exec', 'pty_list', 'pty_read', 'pty_send', 'pty_start', 'pty_stop']

  it('anthropic: { name, description, input_schema } for every tool, sorted', () => {
    expect(anthropicTools.map((t) => t.name)).toEqual(names)
    expect(anthropicDefault).toEqual(anthropicTools)
    expect(anthropicRequest.tools).toEqual(anthropicTools)
    for (const tool of anthropicTools) {
      expect(Object.keys(tool).sort()).toEqual(['description', 'input_schema', 'name'])
      expect(tool.input_schema.type).toBe('object')
      expect(tool.input_schema).not.toHaveProperty('oneOf')
    }
    expect(notAnthropic[0]).toHaveProperty('function')
  })

  it('openai chat: { type: function, function: { …, strict: true } } with strict schemas', () => {
    expect(chatTools.map((t) => (t.type === 'function' ? t.function.name : ''))).toEqual(names)
    expect(chatToolsNs).toEqual(chatTools)
    expect(chatRequest.tools).toEqual(chatTools)
    for (const tool of chatTools) {
      if (tool.type !== 'function') throw new Error('not a function tool')
      expect(tool.function.strict).toBe(true)
      const params = tool.function.parameters as { properties: object; required: string[]; additionalProperties: boolean }
      // Strict mode: every property required, the object closed.
      expect([...params.required].sort()).toEqual(Object.keys(params.properties).sort())
      expect(params.additionalProperties).toBe(false)
    }
    expect(notChat[0]).not.toHaveProperty('function')
  })

  it('openai responses: { type: function, name, parameters, strict: true }', () => {
    expect(responsesTools.map((t) => t.name)).toEqual(names)
    expect(responsesRequest.tools).toEqual(responsesTools)
    for (const [i, tool] of responsesTools.entries()) {
      const chat = chatTools[i]
      if (chat.type !== 'function') throw new Error('not a function tool')
      expect(tool).toEqual({ type: 'function', name: chat.function.name, description: chat.function.description, parameters: chat.function.parameters, strict: true })
    }
    expect(notResponses[0]).not.toHaveProperty('type')
  })

  it('mcp: { name, description, inputSchema, annotations? } with annotations from the permission class', () => {
    expect(mcpTools.map((t) => t.name)).toEqual(names)
    const byName = Object.fromEntries(mcpTools.map((t) => [t.name, t]))
    expect(byName.git.annotations).toBeUndefined()
    expect(byName.git.inputSchema).toEqual(anthropicTools[0].input_schema)
    expect(byName.pty_read.annotations).toMatchObject({ readOnlyHint: true })
    expect(byName.pty_list.annotations).toMatchObject({ readOnlyHint: true })
    expect(byName.pty_stop.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    expect(byName.pty_exec.annotations).toMatchObject({ readOnlyHint: false })
    expect(byName.pty_send.annotations).toMatchObject({ readOnlyHint: false })
  })

  it('tool results built from respond() replies', async () => {
    const result = await anthropicToolResult({ type: 'tool_use', id: 'toolu_1', name: 'pty_list', input: {}, caller: { type: 'direct' } } as Anthropic.Messages.ToolUseBlock)
    expect(result).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'No terminal sessions.', is_error: false })
    const message = await openaiToolMessage({ type: 'function', id: 'call_1', function: { name: 'pty_read', arguments: '{"id":"pty9"}' } })
    expect(message.role).toBe('tool')
    expect(message.content).toMatch(/^Error: no terminal session "pty9"/)
  })
})
