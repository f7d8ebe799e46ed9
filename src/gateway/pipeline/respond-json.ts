import type { ServerResponse } from 'node:http'
import type { AssistantToolCall, ChatCompletion, ToolCallDelta } from '../../shared/api/chat-response'
import type { LiveGeneration } from '../generation/generation-registry'
import { runGeneration, startGeneration } from '../generation/run-generation'
import { sendJson } from '../http/send-json'
import { planInput, usageOf, type CompletionContext, type GenerationEndObserver } from './completion-context'
import { HeaderName } from '../../shared/api/headers'

/** A finished non-streaming reply: the completion object, and the model server that made it. */
export interface JsonReply {
  completion: ChatCompletion
  upstream: string | undefined
}

/**
 * Stage: `stream: false`. The reply is gathered into one chat.completion object. A failure is
 * thrown as a GatewayError — still an ordinary error response here, since nothing has been sent.
 * Resolves undefined when the client left (nobody to answer). A generation stopped by
 * POST /v1/generations/{id}/stop returns what was generated so far with `finish_reason: "stop"`
 * (docs/api-decisions.md explains why).
 */
export async function generateJsonReply(
  context: CompletionContext,
  live: LiveGeneration,
  onEnd: GenerationEndObserver,
  onFirstToken?: () => void,
): Promise<JsonReply | undefined> {
  const started = await startGeneration(context.model.backend, planInput(context), live, (refused) => onEnd(refused, undefined))
  let text = ''
  let reasoning = ''
  const toolCalls: AssistantToolCall[] = []
  const result = await runGeneration(
    started,
    live,
    {
      content: (piece) => {
        text += piece
      },
      reasoning: (piece) => {
        reasoning += piece
      },
      toolCall: (delta) => mergeToolCall(toolCalls, delta),
    },
    onFirstToken,
  )
  onEnd(result, started?.upstream)

  const { outcome } = result
  if (outcome.kind === 'failed') throw outcome.error
  if (outcome.kind === 'stopped' && outcome.reason === 'client_disconnected') return undefined
  const calls = toolCalls.filter((call) => call !== undefined)
  return {
    upstream: started?.upstream,
    completion: {
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
            ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
          logprobs: null,
          finish_reason: outcome.kind === 'finished' ? outcome.reason : 'stop',
        },
      ],
      usage: usageOf(context, result).usage,
    },
  }
}

/** Send a generated reply (when the client is still there to get it). */
export function sendJsonReply(res: ServerResponse, reply: JsonReply | undefined): void {
  if (reply === undefined || res.destroyed) return
  if (reply.upstream !== undefined) res.setHeader(HeaderName.upstream, reply.upstream)
  sendJson(res, 200, reply.completion)
}

/** Join streamed pieces into whole calls: id, type and name from the first, arguments appended. */
function mergeToolCall(calls: AssistantToolCall[], delta: ToolCallDelta): void {
  const call = (calls[delta.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } })
  if (delta.id !== undefined) call.id = delta.id
  if (delta.function?.name !== undefined) call.function.name = delta.function.name
  call.function.arguments += delta.function?.arguments ?? ''
}
