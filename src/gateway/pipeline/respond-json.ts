import type { ServerResponse } from 'node:http'
import type { AssistantToolCall, ToolCallDelta } from '../../shared/api/chat-response'
import type { LiveGeneration } from '../generation/generation-registry'
import { runGeneration, startGeneration } from '../generation/run-generation'
import { sendJson } from '../http/send-json'
import { setResponseHeader } from '../http/response-head'
import { planInput, usageOf, type CompletionContext, type GenerationEndObserver } from './completion-context'
import { HeaderName } from '../../shared/api/headers'
import type { WireFormat } from '../endpoints/endpoint'

/** A finished non-streaming reply: the endpoint's JSON object, and the model server that made it. */
export interface JsonReply {
  body: unknown
  upstream: string | undefined
}

/**
 * Stage: `stream: false`. The reply is gathered from the events, and the endpoint's wire format
 * writes it as its JSON object. A failure is
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
  await onEnd(result, started?.upstream)

  const { outcome } = result
  if (outcome.kind === 'failed') throw outcome.error
  if (outcome.kind === 'stopped' && outcome.reason === 'client_disconnected') return undefined
  // The reply's usage is then the gateway's count: a long prompt is counted in slices, not in one go.
  if (result.reportedUsage === undefined) await context.plan.counted()
  const stopped = outcome.kind === 'stopped'
  return {
    upstream: started?.upstream,
    body: context.wire.json(context, {
      content: text,
      reasoning,
      toolCalls: toolCalls.filter((call) => call !== undefined),
      finishReason: outcome.kind === 'finished' ? outcome.reason : 'stop',
      stopped,
      usage: usageOf(context, result).usage,
    }),
  }
}

/** Send a generated reply (when the client is still there to get it), written as its API's wire format writes it. */
export function sendJsonReply(res: ServerResponse, reply: JsonReply | undefined, wire: WireFormat): void {
  if (reply === undefined || res.destroyed) return
  if (reply.upstream !== undefined) setResponseHeader(res, HeaderName.upstream, reply.upstream)
  sendJson(res, 200, reply.body, wire.jsonBody)
}

/** Join streamed pieces into whole calls: id, type and name from the first, arguments appended. */
function mergeToolCall(calls: AssistantToolCall[], delta: ToolCallDelta): void {
  const call = (calls[delta.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } })
  if (delta.id !== undefined) call.id = delta.id
  if (delta.function?.name !== undefined) call.function.name = delta.function.name
  call.function.arguments += delta.function?.arguments ?? ''
}
