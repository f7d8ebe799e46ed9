import type { ServerResponse } from 'node:http'
import { STOPPED_COMMENT } from '../../shared/api/stream-notes'
import type { StartedGeneration } from '../backends/model-backend'
import type { GatewayError } from '../errors'
import type { LiveGeneration } from '../generation/generation-registry'
import { runGeneration, startGeneration } from '../generation/run-generation'
import { ChunkEncoder } from '../sse/chunk-encoder'
import { SseWriter } from '../sse/sse-writer'
import { planInput, usageOf, type CompletionContext, type GenerationEndObserver } from './completion-context'
import { HeaderName } from '../../shared/api/headers'

export interface StreamOptions {
  /** How often `: ping` goes out while forwarding: 10 s, shorter only in tests. */
  pingIntervalMs: number
  onEnd: GenerationEndObserver
  onFirstToken?: () => void
}

/**
 * Stage: stream the reply as server-sent events, in this order: the role chunk, the
 * content (or tool-call) chunks, the finish chunk without delta, the usage chunk when asked, then
 * `[DONE]`. A stopped generation sends no finish chunk, a comment saying who stopped it
 * (shared/api/stream-notes.ts), then still usage and `[DONE]`; a failed one
 * sends one error event and closes without `[DONE]`, never a made-up `stop`. The OpenAI dialect
 * gives the finish chunk an empty `delta`, and a stopped stream a finish chunk with `stop` (what
 * its JSON form says too), because OpenAI's SDK helpers refuse a choice without a finish reason.
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
  const chunks = new ChunkEncoder(context.id, context.created, context.model.id, context.dialect.finishChunkHasDelta)
  let ping: NodeJS.Timeout | undefined
  const keepAlive = () => (ping ??= setInterval(() => void writer.comment('ping'), options.pingIntervalMs))
  let opened = false
  const openEarly = setTimeout(() => {
    if (res.destroyed) return
    opened = true
    writer.open()
    void writer.comment('ping')
    keepAlive()
  }, options.pingIntervalMs)

  let started: StartedGeneration | undefined
  try {
    started = await startGeneration(context.model.backend, planInput(context), live, (refused) => options.onEnd(refused, undefined))
  } catch (error) {
    clearTimeout(openEarly)
    clearInterval(ping)
    if (!opened) throw error
    // The ending was reported as the start was refused; the client learns it from one event.
    await writer.data(JSON.stringify((error as GatewayError).toEnvelope()))
    return writer.abandon()
  }
  clearTimeout(openEarly)
  if (!opened) {
    if (started?.upstream !== undefined) res.setHeader(HeaderName.upstream, started.upstream)
    writer.open()
  }
  // From the moment headers are out, so a slow first token can't trip a proxy's idle timeout.
  if (started?.keepAlive) keepAlive()
  try {
    await writer.data(chunks.role())
    const result = await runGeneration(
      started,
      live,
      {
        content: (text) => writer.data(chunks.content(text)),
        reasoning: (text) => writer.data(chunks.reasoning(text)),
        toolCall: (delta) => writer.data(chunks.toolCall(delta)),
      },
      options.onFirstToken,
    )
    clearInterval(ping)
    options.onEnd(result, started?.upstream)

    const { outcome } = result
    if (outcome.kind === 'failed') {
      await writer.data(JSON.stringify(outcome.error.toEnvelope()))
      return writer.abandon()
    }
    if (outcome.kind === 'stopped' && outcome.reason === 'client_disconnected') return writer.abandon()
    if (outcome.kind === 'finished') await writer.data(chunks.finish(outcome.reason))
    else if (context.dialect.stoppedStreamFinishes) await writer.data(chunks.finish('stop'))
    if (outcome.kind === 'stopped') await writer.comment(STOPPED_COMMENT[outcome.reason === 'shutdown' ? 'shutdown' : 'stop_call'])
    if (context.request.includeUsage) await writer.data(chunks.usage(usageOf(context, result).usage))
    writer.done()
  } finally {
    clearInterval(ping)
  }
}
