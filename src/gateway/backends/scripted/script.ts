import type { ChatTool } from '../../../shared/api/chat-request'
import type { MessagesPrompt, Prompt } from '../generation-request'

/**
 * What the scripted model will say: pure rules, no I/O, so they are tested on
 * their own. With tools it calls the function `tool_choice` names, or every tool for `required`,
 * or only the first when `parallel_tool_calls` is false; otherwise (`auto`) the first tool, until
 * the conversation ends with tool results, which it answers in text. `none` answers in text.
 * The text is the last user message's, repeated; a plain prompt (completions) is repeated whole.
 */
export type Script = { kind: 'text'; text: string } | { kind: 'tool_calls'; tools: ChatTool[] }

export function scriptReply(request: Prompt): Script {
  if (request.kind === 'text') return { kind: 'text', text: request.text }
  const text = lastUserText(request)
  const { tools, toolChoice } = request
  if (tools.length === 0 || toolChoice === 'none') return { kind: 'text', text }
  if (typeof toolChoice === 'object') {
    const named = tools.find((tool) => tool.function.name === toolChoice.function.name)
    return named === undefined ? { kind: 'text', text } : { kind: 'tool_calls', tools: [named] }
  }
  if (toolChoice === 'required') {
    return { kind: 'tool_calls', tools: request.parallelToolCalls === false ? tools.slice(0, 1) : tools }
  }
  const last = request.messages[request.messages.length - 1]
  if (last?.role === 'tool') return { kind: 'text', text }
  return { kind: 'tool_calls', tools: tools.slice(0, 1) }
}

function lastUserText(request: MessagesPrompt): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]
    if (message?.role === 'user') return message.content ?? ''
  }
  return ''
}
