// Agent loops over ptypilot's registry for the Anthropic Messages API, OpenAI
// Chat Completions and the OpenAI Responses API: the typed definitions go to
// the model as they are, every tool call goes to registry.respond(), and the
// reply's text goes back. Type-checked with the rest of the project
// (`npx tsc -p tsconfig.json`); to run one, call it with a client and a task:
//
//   const client = new Anthropic()   // reads ANTHROPIC_API_KEY
//   await anthropicAgent(client, '/path/to/repo', 'Stage only the typo fix.')
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { ToolRegistry, gitTool, terminalTools } from 'ptypilot'

/** A registry with the git tool and the terminal tools, allowed a few programs. */
function registryFor(cwd: string): ToolRegistry {
  const registry = new ToolRegistry({ cwd })
  registry.register(gitTool())
  registry.register(terminalTools({ allow: ['git', 'npm', 'node', 'python3', 'ls', 'cat'] }))
  return registry
}

/** Anthropic Messages API: tool_use blocks in, tool_result blocks out. */
export async function anthropicAgent(client: Anthropic, cwd: string, task: string, model = 'claude-sonnet-4-5'): Promise<string> {
  await using registry = registryFor(cwd)
  const tools: Anthropic.Messages.Tool[] = registry.definitions('anthropic')
  const messages: Anthropic.Messages.MessageParam[] = [{ role: 'user', content: task }]
  for (;;) {
    const message = await client.messages.create({ model, max_tokens: 4096, tools, messages })
    messages.push({ role: 'assistant', content: message.content })
    const results: Anthropic.Messages.ToolResultBlockParam[] = []
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue
      const reply = await registry.respond(block.name, block.input)
      results.push({ type: 'tool_result', tool_use_id: block.id, content: reply.text, is_error: reply.isError })
    }
    if (results.length === 0) {
      return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    }
    messages.push({ role: 'user', content: results })
  }
}

/** OpenAI Chat Completions: tool calls carry their arguments as a JSON string, which respond() takes. */
export async function openaiChatAgent(client: OpenAI, cwd: string, task: string, model = 'gpt-4.1'): Promise<string> {
  await using registry = registryFor(cwd)
  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = registry.definitions('openai')
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: task }]
  for (;;) {
    const completion = await client.chat.completions.create({ model, tools, messages })
    const message = completion.choices[0].message
    messages.push(message)
    const calls = message.tool_calls ?? []
    if (calls.length === 0) return message.content ?? ''
    for (const call of calls) {
      if (call.type !== 'function') continue
      const reply = await registry.respond(call.function.name, call.function.arguments)
      messages.push({ role: 'tool', tool_call_id: call.id, content: reply.text })
    }
  }
}

/** OpenAI Responses API: function_call items in, function_call_output items out. */
export async function openaiResponsesAgent(client: OpenAI, cwd: string, task: string, model = 'gpt-4.1'): Promise<string> {
  await using registry = registryFor(cwd)
  const tools: OpenAI.Responses.FunctionTool[] = registry.definitions('openai-responses')
  let input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: task }]
  let previous: string | undefined
  for (;;) {
    const response = await client.responses.create({ model, tools, input, previous_response_id: previous })
    previous = response.id
    const outputs: OpenAI.Responses.ResponseInputItem.FunctionCallOutput[] = []
    for (const item of response.output) {
      if (item.type !== 'function_call') continue
      const reply = await registry.respond(item.name, item.arguments)
      outputs.push({ type: 'function_call_output', call_id: item.call_id, output: reply.text })
    }
    if (outputs.length === 0) return response.output_text
    input = outputs
  }
}
