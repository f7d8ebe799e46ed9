import type { ReplicaStatus } from '../../../shared/api/health'
import { SseDecoder } from '../../../shared/sse/sse-decoder'
import { parseWholeReply } from './parse-whole-reply'
import { GatewayError } from '../../errors'
import type { Tokenizer } from '../../tokens/tokenizer'
import type { EmbeddingsJob, EmbeddingsResult, GenerationEvent, GenerationEventSink, GenerationInput, ModelBackend, StartedGeneration } from '../model-backend'
import { ReplicaHealth } from './replica-health'
import { ToolCallPieces } from './tool-call-pieces'
import { forwardEmbeddings } from './upstream-embeddings'
import type { Replica, ReplicaPool } from './replica-pool'
import { rejectsStreamOptions } from './stream-options'
import { lacksPath, upstreamBrokeOff, upstreamFailed, upstreamLacks, upstreamUnavailable, upstreamWentSilent } from './upstream-errors'
import { readWholeReply } from './whole-reply'
import type { UpstreamForm } from './upstream-form'
import { errorDetail, noAnswer, postToReplica, readBody, replyContentType, UpstreamConnectError, type UpstreamReply } from './upstream-http'
import { outgoingBytes, type SplicedJson } from '../../http/json-splice'
import { errorText } from '../../../shared/narrow'

export interface UpstreamBackendOptions {
  deployment: string
  /** The model's id in the catalog: sent upstream unless a replica names its own model. */
  modelId: string
  pool: ReplicaPool
  /** The catalog model's tokenizer: the gateway's estimate of what the server generates. */
  tokenizer: Tokenizer
}

const ERROR_BODY_LIMIT = 64 * 1024
const ignore = () => undefined
/** How long a server may keep the connection open after `[DONE]` before it is hung up on. */
const AFTER_DONE_GRACE_MS = 1000


/** Whether a reply is a JSON body rather than an event stream (what some servers send when asked for a stream). */
function isJson(res: UpstreamReply): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(replyContentType(res) ?? '')
}

/**
 * A deployment that forwards to OpenAI-compatible model servers (vLLM, llama.cpp, Ollama, LM
 * Studio…). Picks a replica (sticky by session, failing over when one refuses connections), sends
 * the request, maps the reply to gateway events, and enforces the limit on servers that ignore
 * max_tokens: 3 × max_tokens + 64 tokens by the gateway's estimate, then `length`, connection closed.
 */
export class UpstreamBackend implements ModelBackend {
  readonly deployment: string
  private readonly replicaHealth: ReplicaHealth

  constructor(private readonly options: UpstreamBackendOptions) {
    this.deployment = options.deployment
    this.replicaHealth = new ReplicaHealth(options.pool)
  }

  health(): Promise<ReplicaStatus[]> {
    return this.replicaHealth.current()
  }

  embed(job: EmbeddingsJob): Promise<EmbeddingsResult> {
    return forwardEmbeddings(this.options.pool, this.options.modelId, this.options.tokenizer, job)
  }

  async start(input: GenerationInput): Promise<StartedGeneration> {
    const { pool } = this.options
    const tried: string[] = []
    let lastDetail = ''
    for (const replica of pool.candidates(input.affinityKey)) {
      tried.push(replica.id)
      try {
        const { res, form } = await this.send(replica, input)
        pool.markUp(replica)
        return { upstream: replica.id, keepAlive: true, run: this.runner(res, form, replica, input) }
      } catch (error) {
        if (error instanceof GatewayError) {
          // It answered, with an error status: reachable, but the failure is worth reporting.
          pool.noteError(replica, error.message)
          throw error
        }
        if (!(error instanceof UpstreamConnectError)) throw error
        if (error.kind === 'aborted') throw error
        lastDetail = noAnswer(pool, replica, error)
      }
    }
    throw upstreamUnavailable(tried, lastDetail)
  }

  /**
   * One replica: send the request in the first of its forms the replica is not known to lack, and
   * on a 2xx return the response. A refusal of stream_options is retried without; a form the
   * server turns out to lack (404/405) is remembered and the next form tried; when none is left,
   * the endpoint is not supported there (501).
   */
  private async send(replica: Replica, input: GenerationInput): Promise<{ res: UpstreamReply; form: UpstreamForm }> {
    for (const form of input.request.forms) {
      if (replica.missingPaths.has(form.path)) continue
      const res = await this.sendForm(replica, form, input)
      if (res !== undefined) return { res, form }
      replica.missingPaths.add(form.path)
    }
    throw upstreamLacks(replica.id, input.request.forms.map((form) => form.path))
  }

  /** Undefined: the server lacks this form's path. */
  private async sendForm(replica: Replica, form: UpstreamForm, input: GenerationInput): Promise<UpstreamReply | undefined> {
    const { request } = input
    for (;;) {
      const askForUsage = replica.acceptsStreamOptions
      const body = form.body(request, { model: replica.model ?? this.options.modelId, maxTokens: input.maxTokens, askForUsage })
      input.onSending?.(replica.id)
      // Encoded here, once, for the socket and for capture (its size, and a search for sent secrets).
      const encoded = outgoingBytes(body)
      const wire = typeof encoded === 'string' ? Buffer.from(encoded) : encoded
      input.observer?.sent(replica.id, typeof body === 'string' ? body : textWhenRead(body), wire)
      const res = await postToReplica(replica, form.path, wire, { accept: request.stream ? 'text/event-stream' : 'application/json' }, input.signal)
      const status = res.statusCode ?? 0
      input.observer?.responded(status, res.rawHeaders)
      if (status >= 200 && status < 300) return res
      const text = await readBody(res, ERROR_BODY_LIMIT).catch(() => '')
      input.observer?.receivedBody(text)
      if (request.stream && askForUsage && rejectsStreamOptions(status, text)) {
        replica.acceptsStreamOptions = false
        continue
      }
      if (form.mayBeMissing && lacksPath(status, text)) return undefined
      throw upstreamFailed(replica.id, status, errorDetail(text))
    }
  }

  private runner(res: UpstreamReply, form: UpstreamForm, replica: Replica, input: GenerationInput): StartedGeneration['run'] {
    // No max_tokens sent: nothing to ignore, so no cut.
    const cap = input.maxTokens === undefined ? Number.POSITIVE_INFINITY : 3 * input.maxTokens + 64
    // A server may answer a stream request with a JSON completion: it is streamed from the whole.
    if (input.request.stream && !isJson(res)) return (sink) => this.streamed(res, form, replica, cap, input, sink)
    // A JSON reply is read from the moment its headers are in, while the responder gets ready:
    // by the time it runs the generation, the body is usually parsed.
    const events = this.wholeEvents(res, form, replica, cap, input)
    events.catch(() => undefined) // reported by `run`; never an unhandled rejection if it isn't called
    return (sink) => this.whole(events, sink)
  }

  /**
   * Forward a streamed reply as its bytes arrive: decode, map and push in the socket's `data`
   * handler, pausing the model server's socket only while the client's is full. The reply is
   * complete at `[DONE]` (with a derived finish reason if the server sent none), or at a clean
   * close after a finish reason; anything else — a reset, a close before any finish, silence
   * longer than the replica's idle timeout — is a failure mid-reply.
   */
  private streamed(
    res: UpstreamReply,
    form: UpstreamForm,
    replica: Replica,
    cap: number,
    input: GenerationInput,
    sink: GenerationEventSink,
  ): Promise<void> {
    const { signal, observer } = input
    const decoder = new SseDecoder()
    const mapper = form.decoder(this.options.tokenizer)
    let generated = 0
    let settled = false
    let awaiting = 0
    let unsubscribe: () => void = ignore
    return new Promise<void>((resolve, reject) => {
      // A server we are not reading (the client's socket is full) is not idle: the clock starts
      // again when reading resumes. (refresh() re-arms a timer that fired; a cleared one it would not.)
      const idle = setTimeout(() => (awaiting > 0 ? idle.refresh() : settle(upstreamWentSilent(replica))), replica.idleTimeoutMs)
      /** `atDone`: the reply ended at [DONE], and the rest of the response is read for the connection's reuse. */
      const settle = (error?: GatewayError, atDone = false) => {
        if (settled) return
        settled = true
        clearTimeout(idle)
        unsubscribe()
        res.off('data', onData)
        res.off('end', onEnd)
        res.off('error', onError)
        res.off('close', onClose)
        // A socket error after this point must not become an uncaught 'error' event.
        res.on('error', ignore)
        if (error === undefined) resolve()
        else {
          this.options.pool.noteError(replica, error.message)
          reject(error)
        }
        if (res.complete) return
        // Anything still open is hung up on, so the server stops generating — except after [DONE]:
        // read on to the response's end, so its connection is reused; a server that holds it open
        // after [DONE] is hung up on after a short grace.
        if (!atDone) return void res.destroy()
        const grace = setTimeout(() => res.destroy(), AFTER_DONE_GRACE_MS)
        res.once('end', () => clearTimeout(grace))
        res.once('close', () => clearTimeout(grace))
        res.resume()
      }
      const resumeWhenWritten = (pending: Promise<void>) => {
        awaiting++
        res.pause()
        void pending.then(() => {
          if (--awaiting !== 0 || settled) return
          idle.refresh()
          res.resume()
        })
      }
      const push = (event: GenerationEvent) => {
        const pending = sink(event)
        if (pending !== undefined) resumeWhenWritten(pending)
      }
      const onData = (bytes: Buffer) => {
        idle.refresh()
        observer?.received(bytes)
        try {
          for (const event of decoder.push(bytes)) {
            if (settled) return
            if (event.kind === 'comment' || (event.event !== undefined && mapper.unread?.has(event.event) === true)) continue
            if (event.data === '[DONE]') {
              if (!mapper.sawFinish) push(mapper.derivedFinish())
              return settle(undefined, true)
            }
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
            for (const generationEvent of mapper.events(chunk)) {
              push(generationEvent)
              if (generationEvent.kind === 'content' || generationEvent.kind === 'tool_call' || generationEvent.kind === 'reasoning') {
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
          settle(error instanceof GatewayError ? error : upstreamBrokeOff(replica.id, `its reply could not be read (${errorText(error)})`))
        }
      }
      // A clean close after a finish reason is a complete reply (older llama.cpp and its forks never send [DONE]).
      const onEnd = () => settle(mapper.sawFinish ? undefined : upstreamBrokeOff(replica.id, 'it closed the stream before [DONE]'))
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
  private async wholeEvents(res: UpstreamReply, form: UpstreamForm, replica: Replica, cap: number, input: GenerationInput): Promise<GenerationEvent[]> {
    const { tokenizer } = this.options
    const { signal } = input
    const body = await readWholeReply(res, replica, signal)
    if (body === undefined) return []
    input.observer?.receivedBody(body.text, body.bytes)
    let parsed: unknown
    try {
      parsed = parseWholeReply(body, form.unreadMembers)
    } catch {
      throw upstreamFailed(replica.id, res.statusCode ?? 200, 'its reply was not valid JSON')
    }
    const reply = form.whole(parsed)
    if (reply === undefined) throw upstreamFailed(replica.id, res.statusCode ?? 200, 'its reply had no choices')
    const { content, reasoning, usage } = reply
    const calls = this.wholeToolCalls(reply.toolCalls, usage === undefined)
    const finish: GenerationEvent =
      reply.finishReason !== undefined
        ? { kind: 'finish', reason: reply.finishReason }
        : { kind: 'finish', reason: calls.length > 0 ? 'tool_calls' : 'stop', derived: true }
    // The server's usage, when it counted, is what the client gets: the parts need no count of their own.
    const thinking = (tokens: number): GenerationEvent[] => (reasoning !== undefined ? [{ kind: 'reasoning', text: reasoning, tokens }] : [])
    // Tokens never outnumber UTF-8 bytes: under the cap by bytes, the reply needs no cut, and when
    // the server counted it, its count stands — no need to tokenize the reply again.
    if (usage !== undefined && Buffer.byteLength(content) <= cap) {
      return [
        ...thinking(0),
        ...(content !== '' ? [{ kind: 'content', text: content, tokens: usage.completion_tokens } as const] : []),
        ...calls,
        { kind: 'usage', usage },
        finish,
      ]
    }
    const reasoningTokens = reasoning === undefined ? 0 : tokenizer.count(reasoning)
    const contentTokens = tokenizer.encode(content)
    if (contentTokens.length > cap) {
      // It ignored max_tokens: keep what the limit allows; the usage is then the gateway's estimate.
      const pieces = Array.from(tokenizer.decodePieces(contentTokens.slice(0, cap)), (piece) => ({ kind: 'content', text: piece.text, tokens: piece.tokens }) as const)
      return [...thinking(reasoningTokens), ...pieces, { kind: 'finish', reason: 'length' }]
    }
    return [
      ...thinking(reasoningTokens),
      ...(content !== '' ? [{ kind: 'content', text: content, tokens: contentTokens.length } as const] : []),
      ...calls,
      ...(usage !== undefined ? [{ kind: 'usage', usage } as const] : []),
      finish,
    ]
  }

  /** A JSON reply's tool calls as whole pieces, each with the gateway's count when `count` is set. */
  private wholeToolCalls(raw: readonly unknown[], count: boolean): GenerationEvent[] {
    const pieces = new ToolCallPieces()
    const events: GenerationEvent[] = []
    for (const [position, call] of raw.entries()) {
      const piece = pieces.piece(call, position)
      if (piece === undefined) continue
      const tokens = !count ? 0 : this.options.tokenizer.count((piece.function?.name ?? '') + (piece.function?.arguments ?? ''))
      events.push({ kind: 'tool_call', delta: piece, tokens })
    }
    return events
  }
}

/**
 * The text of a spliced body, made when first read. Made here, outside the request's scope, so
 * that the function holds the body alone: a closure holds its whole scope, and capture keeps this
 * one as long as the exchange is reachable.
 */
function textWhenRead(body: SplicedJson): () => string {
  return () => body.text
}
