import type { ServerResponse } from 'node:http'
import type { StartedGeneration } from '../backends/model-backend'
import type { GatewayError } from '../errors'
import type { LiveGeneration } from '../generation/generation-registry'
import { runGeneration, startGeneration } from '../generation/run-generation'
import { SseWriter } from '../sse/sse-writer'
import { planInput, usageOf, type CompletionContext, type GenerationEndObserver } from './completion-context'
import { HeaderName } from '../../shared/api/headers'
import { setResponseHeader } from '../http/response-head'
import type { StreamEnding } from '../endpoints/endpoint'

export interface StreamOptions {
  /** How often `: ping` goes out while forwarding: 10 s, shorter only in tests. */
  pingIntervalMs: number
  onEnd: GenerationEndObserver
  onFirstToken?: () => void
}

/**
 * Stage: stream the reply as server-sent events, in the endpoint's wire format: its opening
 * frames, one frame per generation event, then its ending (finished or stopped; a stopped stream
 * still ends the way its API's clients expect). A failed one gets the format's error frame and
 * closes without an ending, never a made-up finish. A client that left gets nothing more.
 *
 * Nothing is written until the backend has started (a model server sent its headers), so that a
 * fast refusal is still an HTTP status (502, 503, 504). A model server that has not answered
 * within one ping interval (loading a model, a long queue) gets the stream opened anyway — a 200
 * and the first `: ping` — so the client and any proxy in between see a live connection; a failure
 * to start after that can only be the mid-stream error event, without `[DONE]`.
 */
export async function respondWithStream(
  res: ServerResponse,
  context: CompletionContext,
  live: LiveGeneration,
  options: StreamOptions,
): Promise<void> {
  const writer = new SseWriter(res)
  const encoder = context.wire.stream(context)
  let ping: NodeJS.Timeout | undefined
  const keepAlive = () => (ping ??= setInterval(() => void writer.comment('ping'), options.pingIntervalMs))
  let opened = false
  let waitingOn: string | undefined
  const openEarly = setTimeout(() => {
    if (res.destroyed) return
    opened = true
    if (waitingOn !== undefined) setResponseHeader(res, HeaderName.upstream, waitingOn)
    writer.open()
    void writer.comment('ping')
    keepAlive()
  }, options.pingIntervalMs)

  let started: StartedGeneration | undefined
  try {
    const input = { ...planInput(context), onSending: (replica: string) => void (waitingOn = replica) }
    started = await startGeneration(context.model.backend, input, live, (refused) => options.onEnd(refused, undefined))
  } catch (error) {
    clearTimeout(openEarly)
    clearInterval(ping)
    if (!opened) throw error
    // The ending was reported as the start was refused; the client learns it from one event.
    await writer.frames(context.wire.streamError(error as GatewayError))
    return writer.abandon()
  }
  clearTimeout(openEarly)
  if (!opened) {
    if (started?.upstream !== undefined) setResponseHeader(res, HeaderName.upstream, started.upstream)
    writer.open()
  }
  // From the moment headers are out, so a slow first token can't trip a proxy's idle timeout.
  if (started?.keepAlive) keepAlive()
  try {
    // Counted while the model server works on the prompt, not before it was sent.
    if (encoder.startReadsPromptTokens === true) await context.plan.counted()
    await writer.frames(encoder.start())
    const result = await runGeneration(
      started,
      live,
      {
        content: (text) => writer.event(encoder.content(text)),
        reasoning: (text) => writer.event(encoder.reasoning(text)),
        toolCall: (delta) => writer.event(encoder.toolCall(delta)),
      },
      options.onFirstToken,
    )
    clearInterval(ping)
    await options.onEnd(result, started?.upstream)

    const { outcome } = result
    if (outcome.kind === 'stopped' && outcome.reason === 'client_disconnected') return writer.abandon()
    // The ending's usage is then the gateway's count: a long prompt is counted in slices, not in one go.
    if (result.reportedUsage === undefined) await context.plan.counted()
    if (outcome.kind === 'failed') {
      const usage = () => usageOf(context, result).usage
      await writer.frames(encoder.error?.(outcome.error, usage) ?? context.wire.streamError(outcome.error))
      return writer.abandon()
    }
    const ending: StreamEnding =
      outcome.kind === 'finished' ? { kind: 'finished', reason: outcome.reason } : { kind: 'stopped', by: outcome.reason === 'shutdown' ? 'shutdown' : 'stop_call' }
    await writer.end(encoder.end(ending, () => usageOf(context, result).usage))
  } finally {
    clearInterval(ping)
  }
}
