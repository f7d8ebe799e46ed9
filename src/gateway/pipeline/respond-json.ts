import type { ServerResponse } from 'node:http'
import type { AssistantToolCall, ChatCompletion } from '../../shared/api/chat-response'
import type { LiveGeneration } from '../generation/generation-registry'
import { runGeneration } from '../generation/run-generation'
import { sendJson } from '../http/send-json'
import { usageOf, type CompletionContext } from './completion-context'

/**
 * Stage: `stream: false`. The reply is gathered and sent as one chat.completion object. A failure
 * is still an ordinary error response here, since nothing has been sent yet. A generation stopped
 * by POST /v1/generations/{id}/stop returns what was generated so far with `finish_reason: "stop"`
 * (docs/api-decisions.md explains why).
 */
export async function respondWithJson(
  res: ServerResponse,
  context: CompletionContext,
  live: LiveGeneration,
): Promise<void> {
  let text = ''
  const toolCalls: AssistantToolCall[] = []
  const result = await runGeneration(
    context.model.backend,
    { request: context.request, maxTokens: context.plan.maxTokens },
    live,
    {
      content: (piece) => {
        text += piece
      },
      toolCallStart: (index, id, name) => {
        toolCalls[index] = { id, type: 'function', function: { name, arguments: '' } }
      },
      toolCallArguments: (index, piece) => {
        const call = toolCalls[index]
        if (call !== undefined) call.function.arguments += piece
      },
    },
  )

  const { outcome } = result
  if (outcome.kind === 'failed') throw outcome.error
  if (outcome.kind === 'stopped' && outcome.reason === 'client_disconnected') return
  const calls = toolCalls.filter((call) => call !== undefined)
  const completion: ChatCompletion = {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model.id,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: calls.length > 0 && text === '' ? null : text,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: outcome.kind === 'finished' ? outcome.reason : 'stop',
      },
    ],
    usage: usageOf(context, result),
  }
  sendJson(res, 200, completion)
}
