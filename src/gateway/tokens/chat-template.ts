import type { ChatMessage, ChatTool, ToolCall } from '../../shared/api/chat-request'
import { Derived } from '../../shared/api/element-results'
import { BoundedStringMap } from '../bounded-string-map'
import { pythonJsonDumps } from './python-json'
import type { Tokenizer } from './tokenizer'

/**
 * The Qwen2.5 chat template, rendered as the model server renders it, so that the prompt is
 * counted as the model will read it instead of summing guesses. The output is a list of pieces:
 * text, or a special token (`<|im_start|>`, `<|im_end|>`), which tokenizes as exactly one token.
 * Text between two special tokens (a run) may come in several pieces: a message's text is a piece
 * of its own, never joined to the role before it, so that the prompt counter can find a run by its
 * pieces without copying the client's text (tokens/prompt-counter.ts).
 */
export type TemplatePiece = string | { special: '<|im_start|>' | '<|im_end|>' }

const IM_START = { special: '<|im_start|>' } as const
const IM_END = { special: '<|im_end|>' } as const
/** What opens a message of each role after `<|im_start|>`: one string each, not one per message. */
const ROLE_LINE: Record<ChatMessage['role'], string> = { system: 'system\n', user: 'user\n', assistant: 'assistant\n', tool: 'tool\n' }
export const QWEN_DEFAULT_SYSTEM = 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.'

const TOOLS_PREAMBLE =
  '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>'
const TOOLS_POSTAMBLE =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within ' +
  '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'

export function renderQwen2Prompt(messages: readonly ChatMessage[], tools: readonly ChatTool[]): TemplatePiece[] {
  const pieces = renderQwen2SystemBlock(messages, tools.map(renderedTool))
  renderQwen2Turns(messages, leadingSystemCount(messages), pieces)
  pieces.push(...QWEN_GENERATION_PROMPT)
  return pieces
}

/** What ends every rendered prompt: the assistant's turn opened for the reply. */
export const QWEN_GENERATION_PROMPT: readonly TemplatePiece[] = [IM_START, 'assistant\n']

/** 1 when the conversation starts with a system message, which the system block holds; else 0. */
export function leadingSystemCount(messages: readonly ChatMessage[]): 0 | 1 {
  return messages[0]?.role === 'system' ? 1 : 0
}

/**
 * The system block: the leading system message (or Qwen's default) and the tools (`renderedTool`'s
 * texts), closed by `<|im_end|>` and a newline.
 */
export function renderQwen2SystemBlock(messages: readonly ChatMessage[], tools: readonly string[]): TemplatePiece[] {
  const pieces: TemplatePiece[] = [IM_START, 'system\n', leadingSystemCount(messages) === 1 ? (messages[0]!.content ?? '') : QWEN_DEFAULT_SYSTEM]
  if (tools.length > 0) {
    pieces.push(TOOLS_PREAMBLE)
    for (const tool of tools) pieces.push('\n', tool)
    pieces.push(TOOLS_POSTAMBLE)
  }
  pieces.push(IM_END, '\n')
  return pieces
}

/**
 * The messages from `from` on, appended to `pieces`. Each ends with `<|im_end|>` and a newline —
 * except a tool message followed by another, which share one user turn — and each that follows
 * such an end opens with `<|im_start|>`.
 */
export function renderQwen2Turns(messages: readonly ChatMessage[], from: number, pieces: TemplatePiece[]): void {
  for (let index = from; index < messages.length; index++) {
    const message = messages[index]!
    if (message.role === 'tool') {
      if (messages[index - 1]?.role !== 'tool') pieces.push(IM_START, 'user')
      pieces.push('\n<tool_response>\n', message.content ?? '', '\n</tool_response>')
      if (messages[index + 1]?.role !== 'tool') pieces.push(IM_END, '\n')
      continue
    }
    if (message.role === 'assistant' && message.tool_calls !== undefined) {
      pieces.push(IM_START, 'assistant')
      if (message.content) pieces.push('\n', message.content)
      for (const call of message.tool_calls) pieces.push(renderedCalls.of(call))
      pieces.push(IM_END, '\n')
      continue
    }
    pieces.push(IM_START, ROLE_LINE[message.role], message.content ?? '', IM_END, '\n')
  }
}

/** A tool as the system block lists it (the same string object for the same tool, turn after turn). */
export function renderedTool(tool: ChatTool): string {
  return renderedTools.of(tool)
}

/**
 * A call as the template writes it. Model servers (vLLM) parse the client's arguments text into an
 * object before rendering, so valid JSON is re-serialized; anything else is rendered as a string.
 */
export function renderToolCall(name: string, argumentsJson: string): string {
  const key = name + '\u0000' + argumentsJson
  const known = rendered.get(key)
  if (known !== undefined) return known
  const text = '\n<tool_call>\n{"name": "' + name + '", "arguments": ' + pythonJsonDumps(parseOrKeep(argumentsJson)) + '}\n</tool_call>'
  rendered.set(key, text, text.length)
  return text
}

/** A tool as the system block lists it, found again by its JSON text (the same for the same tool). */
function renderedByText(tool: ChatTool): string {
  const key = '\u0001' + JSON.stringify(tool)
  const known = rendered.get(key)
  if (known !== undefined) return known
  const text = pythonJsonDumps(tool)
  rendered.set(key, text, text.length)
  return text
}

/**
 * Tool calls and tools as rendered before: an agent sends every earlier call and its whole tool
 * list again on each turn, and parsing and dumping them again cost more than the rest of rendering.
 * Keyed by exactly what the rendering depends on; about 2 MB at most.
 */
const rendered = new BoundedStringMap<string>(1_000_000)
/**
 * Each earlier call as rendered, kept with a call that never changes (an element of a conversation
 * the gateway continued, or its translation: the same object each turn); any other is found by
 * its name and arguments.
 */
const renderedCalls = new Derived((call: ToolCall) => renderToolCall(call.function.name, call.function.arguments))
/**
 * Each tool as the system block lists it, kept with a tool that never changes (a remembered tool,
 * or its translation: the same object each turn); any other is found by its JSON text, which
 * costs an agent's tool list of tens of KB a serialization and a hash on every turn.
 */
const renderedTools = new Derived(renderedByText)

function parseOrKeep(json: string): unknown {
  try {
    return JSON.parse(json)
  } catch {
    return json
  }
}

export function countTemplateTokens(pieces: readonly TemplatePiece[], tokenizer: Tokenizer): number {
  let total = 0
  let text = ''
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      text += piece
    } else {
      total += tokenizer.count(text) + 1
      text = ''
    }
  }
  return total + tokenizer.count(text)
}
