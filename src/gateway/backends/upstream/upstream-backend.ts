import type { IncomingMessage } from 'node:http'
import { SseDecoder } from '../../../shared/sse/sse-decoder'
import { GatewayError } from '../../errors'
import type { StopSignal } from '../../generation/stop-signal'
import type { Tokenizer } from '../../tokens/tokenizer'
import type { GenerationEvent, GenerationEventSink, GenerationInput, ModelBackend, StartedGeneration } from '../model-backend'
import { eventsOfChunk, isUsage, toolCallDelta } from './map-upstream-chunk'
import type { Replica, ReplicaPool } from './replica-pool'
import { rejectsStreamOptions, upstreamRequestBody } from './upstream-body'
import { upstreamBrokeOff, upstreamFailed, upstreamTimeout, upstreamUnavailable } from './upstream-errors'
import { errorDetail, postToReplica, readBody, UpstreamConnectError } from './upstream-http'

export interface UpstreamBackendOptions {
  deployment: string
  /** The model's id in the catalog: sent upstream unless a replica names its own model. */
  modelId: string
  pool: ReplicaPool
  /** The catalog model's tokenizer: the gateway's estimate of what the server generates. */
  tokenizer: Tokenizer
}

const ERROR_BODY_LIMIT = 64 * 1024
const JSON_BODY_LIMIT = 64 * 1024 * 1024
const ignore = () => undefined

/**
 * A deployment that forwards to OpenAI-compatible model servers (vLLM, llama.cpp, Ollama, LM
 * Studio…). Picks a replica (sticky by session, failing over when one refuses connections), sends
 * the request, maps the reply to gateway events, and enforces the limit on servers that ignore
 * max_tokens: 3 × max_tokens + 64 tokens by the gateway's estimate, then `length`, connection closed.
 */
export class UpstreamBackend implements ModelBackend {
  readonly deployment: string

  constructor(private readonly options: UpstreamBackendOptions) {
    this.deployment = options.deployment
  }

  async start(input: GenerationInput): Promise<StartedGeneration> {
    const { pool } = this.options
    const tried: string[] = []
    let lastDetail = ''
    for (const replica of pool.candidates(input.affinityKey)) {
      tried.push(replica.id)
      try {
        const res = await this.send(replica, input)
        pool.markUp(replica)
        return { upstream: replica.id, keepAlive: true, run: this.runner(res, replica, input) }
      } catch (error) {
        if (!(error instanceof UpstreamConnectError)) throw error
        if (error.kind === 'aborted') throw error
        if (error.kind === 'timeout') throw upstreamTimeout(replica.id, replica.timeoutMs / 1000)
        // Refused or broken before any answer: the request never ran there, so the next replica may take it.
        pool.markDown(replica)
        lastDetail = error.message
      }
    }
    throw upstreamUnavailable(tried, lastDetail)
  }

  /** One replica: send, and on a 2xx return the response; a refusal of stream_options is retried without. */
  private async send(replica: Replica, input: GenerationInput): Promise<IncomingMessage> {
    const { request } = input
    for (;;) {
      const askForUsage = replica.acceptsStreamOptions
      const body = upstreamRequestBody(request, {
        model: replica.model ?? this.options.modelId,
        maxTokens: input.maxTokens,
        askForUsage,
      })
      const res = await postToReplica(replica, '/chat/completions', body, { accept: request.stream ? 'text/event-stream' : 'application/json' }, input.signal)
      const status = res.statusCode ?? 0
      if (status >= 200 && status < 300) return res
      const text = await readBody(res, ERROR_BODY_LIMIT).catch(() => '')
      if (request.stream && askForUsage && rejectsStreamOptions(status, text)) {
        replica.acceptsStreamOptions = false
        continue
      }
      throw upstreamFailed(replica.id, status, errorDetail(text))
    }
  }

  private runner(res: IncomingMessage, replica: Replica, input: GenerationInput): StartedGeneration['run'] {
    const cap = 3 * input.maxTokens + 64
    if (input.request.stream) return (sink) => this.streamed(res, replica, cap, input.signal, sink)
    // A JSON reply is read from the moment its headers are in, while the responder gets ready:
    // by the time it runs the generation, the body is usually parsed.
    const events = this.wholeEvents(res, replica, cap, input.signal)
    events.catch(() => undefined) // reported by `run`; never an unhandled rejection if it isn't called
    return (sink) => this.whole(events, sink)
  }

  /**
   * Forward a streamed reply as its bytes arrive: decode, map and push in the socket's `data`
   * handler, pausing the model server's socket only while the client's is full.
   */
  private streamed(res: IncomingMessage, replica: Replica, cap: number, signal: StopSignal, sink: GenerationEventSink): Promise<void> {
    const decoder = new SseDecoder()
    const { tokenizer } = this.options
    let generated = 0
    let sawDone = false
    let settled = false
    let awaiting = 0
    let unsubscribe: () => void = ignore
    return new Promise<void>((resolve, reject) => {
      const settle = (error?: GatewayError) => {
        if (settled) return
        settled = true
        unsubscribe()
        res.off('data', onData)
        res.off('end', onEnd)
        res.off('error', onError)
        res.off('close', onClose)
        // A socket error after this point must not become an uncaught 'error' event.
        res.on('error', ignore)
        // Read to the end after [DONE] rather than cutting it (the connection is then reused);
        // anything else still open is hung up on, so the server stops generating.
        if (!res.complete) res.destroy()
        if (error === undefined) resolve()
        else reject(error)
      }
      const resumeWhenWritten = (pending: Promise<void>) => {
        awaiting++
        res.pause()
        void pending.then(() => {
          if (--awaiting === 0 && !settled) res.resume()
        })
      }
      const push = (event: GenerationEvent) => {
        const pending = sink(event)
        if (pending !== undefined) resumeWhenWritten(pending)
      }
      const onData = (bytes: Buffer) => {
        try {
          for (const event of decoder.push(bytes)) {
            if (settled) return
            if (event.kind === 'comment') continue
            if (event.data === '[DONE]') {
              sawDone = true
              continue
            }
            if (sawDone) continue
            let chunk: unknown
            try {
              chunk = JSON.parse(event.data)
            } catch {
              return settle(upstreamBrokeOff(replica.id, 'it sent a malformed event'))
            }
            const error = (chunk as { error?: unknown }).error
            if (error !== undefined && error !== null) {
              return settle(upstreamBrokeOff(replica.id, errorDetail(JSON.stringify({ error }))))
            }
            for (const generationEvent of eventsOfChunk(chunk, tokenizer)) {
              push(generationEvent)
              if (generationEvent.kind === 'content' || generationEvent.kind === 'tool_call') {
                generated += generationEvent.tokens
                if (generated >= cap) {
                  // It ignores max_tokens: end the reply here, and its connection with it.
                  push({ kind: 'finish', reason: 'length' })
                  return settle()
                }
              }
            }
          }
        } catch (error) {
          settle(error instanceof GatewayError ? error : upstreamBrokeOff(replica.id, `its reply could not be read (${(error as Error).message})`))
        }
      }
      const onEnd = () => settle(sawDone ? undefined : upstreamBrokeOff(replica.id, 'it closed the stream before [DONE]'))
      const onError = (error: NodeJS.ErrnoException) =>
        settle(signal.aborted ? undefined : upstreamBrokeOff(replica.id, `the connection broke (${error.code ?? error.message})`))
      const onClose = () => {
        if (!res.complete) onError(Object.assign(new Error('closed early'), { code: 'ECONNRESET' }))
      }
      // Waiting on a silent server must not outlive the client: an abort hangs up on it at once.
      const onAbort = () => settle()
      unsubscribe = signal.onAbort(onAbort)
      if (settled) return
      res.on('data', onData)
      res.on('end', onEnd)
      res.on('error', onError)
      res.on('close', onClose)
    })
  }

  private async whole(events: Promise<GenerationEvent[]>, sink: GenerationEventSink): Promise<void> {
    for (const event of await events) {
      const pending = sink(event)
      if (pending !== undefined) await pending
    }
  }

  /** A JSON reply, read in full and mapped to events; none when the signal aborted meanwhile. */
  private async wholeEvents(res: IncomingMessage, replica: Replica, cap: number, signal: StopSignal): Promise<GenerationEvent[]> {
    const { tokenizer } = this.options
    let text: string
    const hangUp = () => res.destroy()
    const unsubscribe = signal.onAbort(hangUp)
    try {
      text = await readBody(res, JSON_BODY_LIMIT)
    } catch (error) {
      if (signal.aborted) return []
      throw upstreamBrokeOff(replica.id, `the connection broke (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
    } finally {
      unsubscribe()
    }
    if (signal.aborted) return []
    let completion: { choices?: Array<{ message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }>; usage?: unknown }
    try {
      completion = JSON.parse(text) as typeof completion
    } catch {
      throw upstreamFailed(replica.id, res.statusCode ?? 200, 'its reply was not valid JSON')
    }
    const choice = completion.choices?.[0]
    if (choice === undefined) throw upstreamFailed(replica.id, res.statusCode ?? 200, 'its reply had no choices')
    const content = typeof choice.message?.content === 'string' ? choice.message.content : ''
    const usage = isUsage(completion.usage) ? completion.usage : undefined
    const finish: GenerationEvent = { kind: 'finish', reason: typeof choice.finish_reason === 'string' ? choice.finish_reason : 'stop' }
    // Tokens never outnumber UTF-8 bytes: under the cap by bytes, the reply needs no cut, and when
    // the server counted it, its count stands — no need to tokenize the reply again.
    if (usage !== undefined && Buffer.byteLength(content) <= cap) {
      return [
        ...(content !== '' ? [{ kind: 'content', text: content, tokens: usage.completion_tokens } as const] : []),
        // The server's usage is what the client gets, so the pieces need no count of their own.
        ...this.wholeToolCalls(choice.message?.tool_calls, false),
        { kind: 'usage', usage },
        finish,
      ]
    }
    const contentTokens = tokenizer.encode(content)
    if (contentTokens.length > cap) {
      // It ignored max_tokens: keep what the limit allows; the usage is then the gateway's estimate.
      const pieces = Array.from(tokenizer.decodePieces(contentTokens.slice(0, cap)), (piece) => ({ kind: 'content', text: piece.text, tokens: piece.tokens }) as const)
      return [...pieces, { kind: 'finish', reason: 'length' }]
    }
    return [
      ...(content !== '' ? [{ kind: 'content', text: content, tokens: contentTokens.length } as const] : []),
      ...this.wholeToolCalls(choice.message?.tool_calls, true),
      ...(usage !== undefined ? [{ kind: 'usage', usage } as const] : []),
      finish,
    ]
  }

  /** A JSON reply's tool calls as whole pieces, each with the gateway's count when `count` is set. */
  private *wholeToolCalls(raw: unknown, count: boolean): Generator<GenerationEvent> {
    const calls = Array.isArray(raw) ? raw : []
    for (const [index, call] of calls.entries()) {
      const piece = toolCallDelta({ ...(call as object), index })
      if (piece === undefined) continue
      const tokens = !count ? 0 : this.options.tokenizer.count((piece.function?.name ?? '') + (piece.function?.arguments ?? ''))
      yield { kind: 'tool_call', delta: piece, tokens }
    }
  }
}
