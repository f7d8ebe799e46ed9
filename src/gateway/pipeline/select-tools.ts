import type { ChatTool } from '../../shared/api/chat-request'
import type { MessagesPrompt } from '../backends/generation-request'
import { invalidRequest } from '../errors'
import { pythonJsonDumps } from '../tokens/python-json'
import type { Tokenizer } from '../tokens/tokenizer'
import { HeaderName } from '../../shared/api/headers'

/**
 * Stage: named tool selection (`X-Mortar-Tool-Select: named`). A client that sends its whole
 * catalogue although it has already chosen one function (object-form `tool_choice`) gets only that
 * function sent on, and nothing else: the rule is "only the function explicitly named", even when
 * the history called others. The report counts the tools as the chat template renders them, with
 * the tokenizer prompt planning uses.
 */
export function selectTools<T extends Pick<MessagesPrompt, 'tools' | 'toolChoice'>>(
  request: T,
  header: string | undefined,
  tokenizer: Tokenizer,
): { request: T; report: string | undefined } {
  if (header === undefined) return { request, report: undefined }
  if (header.trim().toLowerCase() !== 'named') {
    throw invalidRequest(
      `${HeaderName.toolSelect} has a value Mortar doesn't recognise: ${JSON.stringify(header.slice(0, 100))}. The only value is \`named\`.`,
      HeaderName.toolSelect,
    )
  }
  const choice = request.toolChoice
  if (typeof choice !== 'object') {
    throw invalidRequest(
      `${HeaderName.toolSelect}: named needs an object-form \`tool_choice\` naming the function to keep, e.g. {"type": "function", "function": {"name": "get_weather"}}.`,
      'tool_choice',
    )
  }
  const kept = request.tools.filter((tool) => tool.function.name === choice.function.name)
  const before = countTools(request.tools, tokenizer)
  const after = countTools(kept, tokenizer)
  return {
    request: { ...request, tools: kept },
    report: `mode=named; tools=${request.tools.length}->${kept.length}; tokens=${before}->${after}; saved=${before - after}`,
  }
}

/** The tools as the template's system block lists them: one JSON line per tool. */
function countTools(tools: readonly ChatTool[], tokenizer: Tokenizer): number {
  return tools.reduce((sum, tool) => sum + tokenizer.count('\n' + pythonJsonDumps(tool)), 0)
}
