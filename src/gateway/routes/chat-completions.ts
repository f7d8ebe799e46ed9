import { randomHex } from '../random-id'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { DIALECT_RULES, type Dialect } from '../../shared/api/dialect'
import { FINGERPRINT_HEADERS, HeaderName, MortarHeader } from '../../shared/api/headers'
import type { RequestAcceptedEvent } from '../../shared/api/telemetry'
import type { Principal } from '../auth/key-store'
import type { OrganizationSettings } from '../config/config-file'
import type { ModelCatalog } from '../config/model-catalog'
import type { GenerationRegistry } from '../generation/generation-registry'
import { upstreamRequestBody } from '../backends/upstream/upstream-body'
import { recorderOf } from '../capture/exchange-recorder'
import { readJsonBody } from '../http/read-json-body'
import { completionRecord, type CompletionContext, type CompletionObserver, type GenerationEndObserver } from '../pipeline/completion-context'
import { parseDedupeRequest, requestFingerprint, type InFlightDedupe } from '../pipeline/in-flight-dedupe'
import { optimizePrompt } from '../pipeline/optimize-prompt'
import { planTokens } from '../pipeline/plan-tokens'
import { resolveSession } from '../pipeline/resolve-session'
import { generateJsonReply, sendJsonReply } from '../pipeline/respond-json'
import { respondWithStream } from '../pipeline/respond-stream'
import { selectTools } from '../pipeline/select-tools'
import { validateChatRequest } from '../pipeline/validate-request'
import { completionEvents, round } from '../telemetry/completion-events'
import type { TelemetryBus } from '../telemetry/telemetry-bus'

export interface ChatCompletionsDeps {
  catalog: () => ModelCatalog
  /** Per-organization settings (their optimizer default). */
  organizations: () => Readonly<Record<string, OrganizationSettings>>
  /** The gateway's dialect (config.json, else `mortar serve --dialect`), for keys that don't choose one. */
  dialect: () => Dialect
  generations: GenerationRegistry
  dedupe: InFlightDedupe
  telemetry: TelemetryBus
  bodyLimitBytes: number
  pingIntervalMs: number
  onCompletion: CompletionObserver | undefined
}

export type ChatCompletionsHandler = (req: IncomingMessage, res: ServerResponse, principal: Principal) => Promise<void>

/**
 * POST /v1/chat/completions, as a pipeline of stages (auth ran before this handler):
 * read body → validate → dedupe check → resolve model → session → select tools → optimize →
 * plan tokens → generate → respond. Each stage throws a GatewayError to refuse; nothing is written
 * to the response before the generation starts.
 */
export function chatCompletions(deps: ChatCompletionsDeps): ChatCompletionsHandler {
  return async (req, res, principal) => {
    const acceptedAt = performance.now()
    const created = Math.floor(Date.now() / 1000)
    // The key's own dialect wins over the gateway's; every answer says which one it speaks, errors included.
    const dialectName = principal.dialect ?? deps.dialect()
    const dialect = DIALECT_RULES[dialectName]
    res.setHeader(HeaderName.dialect, dialectName)
    const body = await readJsonBody(req, deps.bodyLimitBytes)
    const validated = validateChatRequest(body.value, { stream: dialect.streamByDefault })
    const dedupeRequest = parseDedupeRequest(header(req.headers, MortarHeader.dedupe), header(req.headers, MortarHeader.idempotencyKey), validated)
    const model = deps.catalog().resolve(validated.model)
    const session = resolveSession(header(req.headers, MortarHeader.session), validated.user)
    const selected = selectTools(validated, header(req.headers, MortarHeader.toolSelect), model.tokenizer)
    const optimized = optimizePrompt(selected.request, header(req.headers, MortarHeader.optimize), {
      deploymentMode: model.optimizerMode,
      orgDefault: deps.organizations()[principal.org]?.optimize,
    })
    const request = optimized.request
    const plan = await planTokens(model, request)
    const recorder = recorderOf(req)
    const context: CompletionContext = { id: newCompletionId(), created, principal, request, model, session, plan, dialect, observer: recorder }
    if (recorder !== undefined) {
      recorder.completion = { model: model.id, deployment: model.backend.deployment, session: session.name, stream: request.stream }
      // The scripted model reads the request itself; what it saw is the body a model server would get.
      recorder.modelBody = () => upstreamRequestBody(request, { model: model.id, maxTokens: plan.maxTokens, askForUsage: false })
    }

    res.setHeader(HeaderName.requestId, context.id)
    res.setHeader(HeaderName.deployment, model.backend.deployment)
    res.setHeader(HeaderName.model, model.id)
    res.setHeader(HeaderName.session, session.name)
    res.setHeader(HeaderName.optimizer, optimized.report)
    if (selected.report !== undefined) res.setHeader(HeaderName.toolSelector, selected.report)

    const telemetryBase = { org: principal.org, session: session.name, model: model.id }
    const accepted = (id: string, dedupe: RequestAcceptedEvent['dedupe']): RequestAcceptedEvent => ({
      type: 'request.accepted',
      id,
      ...telemetryBase,
      at: new Date().toISOString(),
      key_name: principal.keyName,
      deployment: model.backend.deployment,
      stream: request.stream,
      optimizer: optimized.report,
      tool_selector: selected.report ?? null,
      dedupe,
    })
    // Events are only built when someone subscribes: the telemetry stream costs nothing otherwise.
    const { telemetry } = deps
    const onFirstToken = () => {
      recorder?.firstToken()
      if (telemetry.size === 0) return
      telemetry.publish({ type: 'request.first_token', id: context.id, ...telemetryBase, at: new Date().toISOString(), ttft_ms: round(performance.now() - acceptedAt) })
    }
    const onEnd: GenerationEndObserver = (result, upstream) => {
      if (recorder !== undefined) {
        const { outcome } = result
        recorder.generation = () => ({
          record: completionRecord(context, result, upstream),
          error: outcome.kind === 'failed' ? outcome.error.toEnvelope().error : null,
        })
      }
      if (deps.onCompletion === undefined && telemetry.size === 0) return
      const record = completionRecord(context, result, upstream)
      deps.onCompletion?.(record)
      if (telemetry.size === 0) return
      for (const event of completionEvents(record, performance.now() - acceptedAt, model.price)) telemetry.publish(event)
    }

    if (dedupeRequest !== undefined) {
      const fingerprint = requestFingerprint(body.raw, FINGERPRINT_HEADERS.map((name) => header(req.headers, name)))
      const participation = deps.dedupe.join(principal.org, dedupeRequest.key, fingerprint, context.id, () => {
        const live = deps.generations.register(context.id, principal.org)
        return {
          reply: generateJsonReply(context, live, onEnd, onFirstToken),
          abort: () => deps.generations.abort(context.id, 'client_disconnected'),
          release: () => live.release(),
        }
      })
      res.setHeader(HeaderName.dedupe, participation.role)
      // Shared responses intentionally carry the leader's completion ID.
      res.setHeader(HeaderName.requestId, participation.id)
      if (telemetry.size > 0) telemetry.publish(accepted(participation.id, participation.role))
      whenClientLeaves(res, participation.leave)
      sendJsonReply(res, await participation.reply)
      return
    }

    const live = deps.generations.register(context.id, principal.org)
    if (telemetry.size > 0) telemetry.publish(accepted(context.id, null))
    // Closing the connection stops the generation, in both phases: before the first byte and mid-stream.
    const stopOnLeave = whenClientLeaves(res, () => deps.generations.abort(context.id, 'client_disconnected'))
    try {
      if (request.stream) {
        await respondWithStream(res, context, live, { pingIntervalMs: deps.pingIntervalMs, onEnd, onFirstToken })
      } else {
        sendJsonReply(res, await generateJsonReply(context, live, onEnd, onFirstToken))
      }
    } finally {
      stopOnLeave()
      live.release()
    }
  }
}

/**
 * Run `onLeave` if the client closes the connection before its response finished — including a
 * client that left while its body was still being read, whose `close` has fired already.
 * Returns a function that stops listening.
 */
function whenClientLeaves(res: ServerResponse, onLeave: () => void): () => void {
  const onClose = () => {
    if (!res.writableFinished) onLeave()
  }
  res.on('close', onClose)
  if (res.destroyed) onLeave()
  return () => res.off('close', onClose)
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** A completion ID: `chatcmpl-` and 24 hexadecimal characters. */
export function newCompletionId(): string {
  return 'chatcmpl-' + randomHex(12)
}
