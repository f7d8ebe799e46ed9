import type { ChatConversation, ChatMessage, ChatTool, ToolChoice } from './chat-request'
import { Derived } from './element-results'
import type { ResponsesFunctionTool, ResponsesInputItem, ResponsesRequest, ResponsesTextFormat, ResponsesToolChoice } from './responses-request'

type Item<T extends ResponsesInputItem['type']> = Extract<ResponsesInputItem, { type: T }>

/**
 * Each item's chat form, kept with a remembered item (the same chat objects each turn): an agent
 * sends its whole history on every turn.
 */
const chatMessages = new Derived(
  (item: Item<'message'> | Item<'function_call_output'>): ChatMessage =>
    item.type === 'message' ? { role: item.role === 'developer' ? 'system' : item.role, content: item.content } : { role: 'tool', content: item.output, tool_call_id: item.call_id },
)
const chatCalls = new Derived((item: Item<'function_call'>): NonNullable<ChatMessage['tool_calls']>[number] => ({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } }))
/**
 * The assistant message a call starts (one that follows no assistant message), kept with a
 * remembered call as its chat form is: an agent's history holds one per step, and a message made
 * anew each turn is translated, rendered and written anew by every later stage too.
 */
const callMessages = new Derived((item: Item<'function_call'>): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [chatCalls.of(item)] }))
const chatTools = new Derived(
  (tool: ResponsesFunctionTool): ChatTool => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
    },
  }),
)

/**
 * A Responses request as the chat conversation the gateway runs: the scripted model reads it,
 * token planning renders it, and a model server without /v1/responses is sent it (with the extra
 * fields, in chat's names). Pure, so each rule is tested alone:
 * - `instructions` is the first system message; `system` and `developer` messages are system ones;
 * - a `function_call` item joins the assistant message just before it (a reply that spoke, then
 *   called), or starts one with no text; consecutive calls are one message's `tool_calls`;
 * - a `function_call_output` is a `tool` message with its `call_id`;
 * - reasoning items, and references to them, are dropped (chat has no field for them);
 * - function tools become chat tools; `allowed_tools` narrows them and gives its mode;
 * - `text.format` is chat's `response_format`, `reasoning.effort` its `reasoning_effort`, and
 *   `temperature`/`top_p` pass on as extra fields.
 */
export function responsesToChat(request: ResponsesRequest): { conversation: ChatConversation; extraFields: Record<string, unknown> } {
  const messages: ChatMessage[] = []
  if (request.instructions !== undefined && request.instructions !== '') {
    messages.push({ role: 'system', content: request.instructions })
  }
  for (const item of request.input) {
    switch (item.type) {
      case 'message':
      case 'function_call_output':
        messages.push(chatMessages.of(item))
        break
      case 'function_call': {
        const last = messages[messages.length - 1]
        // A message shared with other requests (a remembered one's) is not changed: a copy takes the call.
        if (last?.role === 'assistant') messages[messages.length - 1] = { ...last, tool_calls: [...(last.tool_calls ?? []), chatCalls.of(item)] }
        else messages.push(callMessages.of(item))
        break
      }
      case 'reasoning':
      case 'item_reference':
        break
    }
  }
  const { tools, toolChoice } = chatToolsOf(request.tools, request.toolChoice)
  return {
    conversation: { messages, tools, toolChoice, parallelToolCalls: tools.length === 0 ? undefined : request.parallelToolCalls },
    extraFields: extraFields(request),
  }
}

function chatToolsOf(
  tools: ResponsesFunctionTool[],
  choice: ResponsesToolChoice | undefined,
): { tools: ChatTool[]; toolChoice: ToolChoice | undefined } {
  let allowed = tools
  let toolChoice: ToolChoice | undefined
  if (choice === undefined || typeof choice === 'string') toolChoice = choice
  else if (choice.type === 'function') toolChoice = { type: 'function', function: { name: choice.name } }
  else {
    const names = new Set(choice.tools.filter((tool) => tool.type === 'function').map((tool) => tool.name))
    allowed = tools.filter((tool) => names.has(tool.name))
    toolChoice = choice.mode
  }
  if (allowed.length === 0) return { tools: [], toolChoice: undefined }
  return { tools: allowed.map((tool) => chatTools.of(tool)), toolChoice }
}

function extraFields(request: ResponsesRequest): Record<string, unknown> {
  const extra: Record<string, unknown> = {}
  if (request.temperature !== undefined) extra.temperature = request.temperature
  if (request.topP !== undefined) extra.top_p = request.topP
  if (request.reasoningEffort !== undefined) extra.reasoning_effort = request.reasoningEffort
  const format = responseFormat(request.textFormat)
  if (format !== undefined) extra.response_format = format
  return extra
}

/** `text.format` in chat's terms; plain text is chat's default and is not sent. */
function responseFormat(format: ResponsesTextFormat | undefined): Record<string, unknown> | undefined {
  if (format === undefined || format.type === 'text') return undefined
  if (format.type === 'json_object') return { type: 'json_object' }
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name ?? 'response',
      schema: format.schema,
      ...(format.description !== undefined ? { description: format.description } : {}),
      ...(format.strict !== undefined ? { strict: format.strict } : {}),
    },
  }
}
