import type { ChatCompletionRequest, ChatMessage, ChatTool, ToolChoice } from './chat-request'
import { Derived } from './element-results'
import type { MessagesContentBlock, AnthropicPrompt, MessagesMessage, MessagesRequest, MessagesTool, MessagesToolChoice } from './messages-request'

/**
 * A Messages request as a chat-completions request: what the scripted model answers, what token
 * planning counts, and what a model server without its own /v1/messages is sent. Pure.
 *
 * - `system` (a string or text blocks) becomes the leading system message; `system` turns inside
 *   `messages` become system messages in place.
 * - A user turn's `tool_result` blocks become `tool` messages (in order, before the turn's text,
 *   as Anthropic requires them first); its text blocks join into one user message.
 * - An assistant turn's text joins into its content, its `tool_use` blocks become `tool_calls`
 *   (`input` serialized as the arguments' JSON). Thinking blocks are dropped: chat has no way to
 *   hand reasoning back.
 * - Tools become functions (`input_schema` → `parameters`); `tool_choice` any → required,
 *   tool → the named function; `disable_parallel_tool_use` → `parallel_tool_calls: false`.
 * - `stop_sequences` → `stop`, `temperature`/`top_p`/`top_k` pass on, `metadata.user_id` → `user`.
 * - `thinking`, `is_error` and `cache_control` have no chat counterpart and are not sent.
 *
 * Images and documents have no text to carry: they are left out, and `untranslatable` names the
 * first one, so that a path that must translate can refuse rather than answer without them.
 */
export interface TranslatedRequest {
  request: ChatCompletionRequest
  /** Where the first block that chat cannot carry is (`messages[1].content[0]`), if any. */
  untranslatable: { param: string; what: string } | undefined
}

export function messagesToChat(body: AnthropicPrompt & Partial<Pick<MessagesRequest, 'max_tokens' | 'stream' | 'stop_sequences' | 'temperature' | 'top_p' | 'top_k' | 'metadata'>>): TranslatedRequest {
  let untranslatable: TranslatedRequest['untranslatable']
  const dropped = (param: string, what: string) => {
    untranslatable ??= { param, what }
  }

  const messages: ChatMessage[] = []
  if (body.system !== undefined) {
    const text = typeof body.system === 'string' ? body.system : joinText(body.system)
    messages.push({ role: 'system', content: text })
  }
  body.messages.forEach((message, i) => {
    const translated = translatedMessages.of(message)
    messages.push(...translated.chat)
    if (translated.dropped !== undefined) dropped(`messages[${i}].${translated.dropped.at}`, translated.dropped.what)
  })

  const tools: ChatTool[] = (body.tools ?? []).map((tool) => translatedTools.of(tool))

  const extraFields: Record<string, unknown> = {}
  if (body.stop_sequences !== undefined && body.stop_sequences.length > 0) extraFields.stop = body.stop_sequences
  if (body.temperature !== undefined) extraFields.temperature = body.temperature
  if (body.top_p !== undefined) extraFields.top_p = body.top_p
  if (body.top_k !== undefined) extraFields.top_k = body.top_k

  const choice = tools.length > 0 ? toolChoiceOf(body.tool_choice) : undefined
  return {
    request: {
      model: body.model,
      messages,
      stream: body.stream ?? false,
      includeUsage: false,
      maxTokens: body.max_tokens,
      user: body.metadata?.user_id ?? undefined,
      tools,
      toolChoice: choice?.toolChoice,
      parallelToolCalls: choice?.parallelToolCalls,
      extraFields,
    },
    untranslatable,
  }
}

/** One message's chat messages, and the first block in it that chat cannot carry (`at`: its place in the message, `content[0]`). */
interface TranslatedMessage {
  chat: readonly ChatMessage[]
  dropped: { at: string; what: string } | undefined
}

/**
 * Each message's translation, and each tool's: an agent sends its whole history and its tools on
 * every turn, and a remembered one's translation is kept with it (the same chat objects each turn).
 */
const translatedMessages = new Derived(translateMessage)
const translatedTools = new Derived(
  (tool: MessagesTool): ChatTool => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.input_schema,
    },
  }),
)

function translateMessage(message: MessagesMessage): TranslatedMessage {
  if (typeof message.content === 'string') return { chat: [{ role: message.role, content: message.content }], dropped: undefined }
  const blocks = message.content
  if (message.role === 'assistant') return { chat: [assistantMessage(blocks)], dropped: undefined }
  let dropped: TranslatedMessage['dropped']
  const drop = (at: string, what: string) => {
    dropped ??= { at, what }
  }
  const chat: ChatMessage[] = []
  const texts: string[] = []
  blocks.forEach((block, j) => {
    if (block.type === 'text') texts.push(block.text)
    else if (block.type === 'tool_result') {
      chat.push({ role: 'tool', tool_call_id: block.tool_use_id, content: toolResultText(block.content, `content[${j}].content`, drop) })
    } else if (block.type === 'image' || block.type === 'document') drop(`content[${j}]`, `${block.type} block`)
  })
  // A turn of tool results alone adds no user message: the results are the turn.
  if (texts.length > 0 || blocks.every((block) => block.type !== 'tool_result')) {
    chat.push({ role: message.role, content: texts.join('\n') })
  }
  return { chat, dropped }
}

function assistantMessage(blocks: readonly MessagesContentBlock[]): ChatMessage {
  const texts: string[] = []
  const calls: NonNullable<ChatMessage['tool_calls']> = []
  for (const block of blocks) {
    if (block.type === 'text') texts.push(block.text)
    else if (block.type === 'tool_use') {
      calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } })
    }
  }
  const message: ChatMessage = { role: 'assistant', content: calls.length > 0 && texts.length === 0 ? null : texts.join('\n') }
  if (calls.length > 0) message.tool_calls = calls
  return message
}

type ToolResultContent = Extract<MessagesContentBlock, { type: 'tool_result' }>['content']

function toolResultText(content: ToolResultContent, param: string, dropped: (param: string, what: string) => void): string {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  const texts: string[] = []
  content.forEach((block, k) => {
    if (block.type === 'text') texts.push(block.text)
    else dropped(`${param}[${k}]`, `${block.type} block`)
  })
  return texts.join('\n')
}

function joinText(blocks: ReadonlyArray<{ text: string }>): string {
  return blocks.map((block) => block.text).join('\n')
}

function toolChoiceOf(choice: MessagesToolChoice | undefined): { toolChoice: ToolChoice | undefined; parallelToolCalls: boolean | undefined } {
  if (choice === undefined) return { toolChoice: undefined, parallelToolCalls: undefined }
  const parallelToolCalls = 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true ? false : undefined
  switch (choice.type) {
    case 'auto':
      return { toolChoice: 'auto', parallelToolCalls }
    case 'any':
      return { toolChoice: 'required', parallelToolCalls }
    case 'none':
      return { toolChoice: 'none', parallelToolCalls: undefined }
    case 'tool':
      return { toolChoice: { type: 'function', function: { name: choice.name } }, parallelToolCalls }
  }
}
