import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { DIALECT_RULES, type Dialect } from '../../shared/api/dialect'
import { FINGERPRINT_HEADERS, HeaderName, MortarHeader } from '../../shared/api/headers'
import type { RequestAcceptedEvent } from '../../shared/api/telemetry'
import type { Principal } from '../auth/key-store'
import type { OrganizationSettings } from '../config/config-file'
import type { ModelCatalog } from '../config/model-catalog'
import type { GenerationRegistry } from '../generation/generation-registry'
import type { Prompt } from '../backends/generation-request'
import { recorderOf, type GenerationFacts } from '../capture/exchange-recorder'
import type { Endpoint } from '../endpoints/endpoint'
import { answerErrorsAs } from '../http/error-format'
import { outgoingText } from '../http/json-splice'
import { readJsonBody } from '../http/read-json-body'
import { setResponseHeader } from '../http/response-head'
import type { ParsedParts } from '../http/parsed-parts'
import { sentSecrets } from '../capture/redact-credentials'
import type { GenerationResult } from '../generation/run-generation'
import {
  completionRecord,
  type CompletionContext,
  type CompletionObserver,
  type CompletionRecord,
  type GenerationEndObserver,
} from '../pipeline/completion-context'
import { parseDedupeRequest, requestFingerprint, type DedupeCoordinator } from '../pipeline/in-flight-dedupe'
import { optimizePrompt, type OptimizerSettings } from '../pipeline/optimize-prompt'
import { planTokens } from '../pipeline/plan-tokens'
import { resolveSession } from '../pipeline/resolve-session'
import { generateJsonReply, sendJsonReply } from '../pipeline/respond-json'
import { respondWithStream } from '../pipeline/respond-stream'
import { selectTools } from '../pipeline/select-tools'
import type { Tokenizer } from '../tokens/tokenizer'
import { completionEvents, round } from '../telemetry/completion-events'
import type { TelemetryBus } from '../telemetry/telemetry-bus'

export interface GenerationRouteDeps {
  catalog: () => ModelCatalog
  /** Per-organization settings (their optimizer default). */
  organizations: () => Readonly<Record<string, OrganizationSettings>>
  /** The gateway's dialect (config.json, else `mortar serve --dialect`), for keys that don't choose one. */
  dialect: () => Dialect
  generations: GenerationRegistry
  dedupe: DedupeCoordinator
  telemetry: TelemetryBus
  bodyLimitBytes: number
  pingIntervalMs: number
  onCompletion: CompletionObserver | undefined
  /** The conversations' parts parsed before, reused per organization when a body is read. */
  parsedParts: ParsedParts
}

export type GenerationHandler = (req: IncomingMessage, res: ServerResponse, principal: Principal) => Promise<void>

/**
 * Any generation endpoint (endpoints/endpoint.ts), as a pipeline of stages (the front door ran
 * before this handler): read body → the endpoint's accept → dedupe check → resolve model →
 * session → select tools → optimize → plan tokens → generate → respond in the endpoint's wire
 * format. Each stage throws a GatewayError to refuse, answered in the endpoint's envelope;
 * nothing is written to the response before the generation starts.
 */
export function generationRoute(endpoint: Endpoint, deps: GenerationRouteDeps): GenerationHandler {
  const { wire } = endpoint
  const handle: GenerationHandler = async (req, res, principal) => {
    answerErrorsAs(req, wire)
    const acceptedAt = performance.now()
    const created = Math.floor(Date.now() / 1000)
    // The key's own dialect wins over the gateway's; every answer says which one it speaks, errors included.
    const dialectName = principal.dialect ?? deps.dialect()
    const dialect = DIALECT_RULES[dialectName]
    setResponseHeader(res, HeaderName.dialect, dialectName)
    const body = await readJsonBody(req, deps.bodyLimitBytes, { parts: deps.parsedParts, scope: principal.org })
    const admitted = endpoint.accept(body.value, { dialect })
    const dedupeRequest = parseDedupeRequest(header(req.headers, MortarHeader.dedupe), header(req.headers, MortarHeader.idempotencyKey), admitted.request)
    const model = deps.catalog().resolve(admitted.model)
    const session = resolveSession(header(req.headers, MortarHeader.session), admitted.request.user, () => sentSecrets(req.rawHeaders, req.url ?? ''))
    const shaped = shapePrompt(admitted.request.prompt, req.headers, model.tokenizer, {
      deploymentMode: model.optimizerMode,
      orgDefault: deps.organizations()[principal.org]?.optimize,
    })
    const request = { ...admitted.request, prompt: shaped.prompt, source: body }
    const plan = await planTokens(model, request)
    const recorder = recorderOf(req)
    const context: CompletionContext = { id: endpoint.newId(), created, principal, request, model, session, plan, dialect, observer: recorder, wire: admitted.wire ?? wire }
    setResponseHeader(res, HeaderName.requestId, context.id)
    setResponseHeader(res, HeaderName.deployment, model.backend.deployment)
    setResponseHeader(res, HeaderName.model, model.id)
    setResponseHeader(res, HeaderName.session, session.name)
    setResponseHeader(res, HeaderName.optimizer, shaped.optimizer)
    if (shaped.toolSelector !== undefined) setResponseHeader(res, HeaderName.toolSelector, shaped.toolSelector)
    // The scripted model reads the request itself; what it saw is the body a model server would get.
    const form = request.forms[0]
    recorder?.decided(
      { model: model.id, deployment: model.backend.deployment, session: session.name, stream: request.stream },
      form === undefined ? undefined : () => outgoingText(form.body(request, { model: model.id, maxTokens: plan.maxTokens, askForUsage: false })),
    )

    const telemetryBase = { org: principal.org, session: session.name, model: model.id }
    const accepted = (id: string, dedupe: RequestAcceptedEvent['dedupe']): RequestAcceptedEvent => ({
      type: 'request.accepted',
      id,
      ...telemetryBase,
      at: new Date().toISOString(),
      key_name: principal.keyName,
      deployment: model.backend.deployment,
      stream: request.stream,
      optimizer: shaped.optimizer,
      tool_selector: shaped.toolSelector ?? null,
      dedupe,
    })
    // Events are only built when someone subscribes: the telemetry stream costs nothing otherwise.
    const { telemetry } = deps
    const onFirstToken = () => {
      recorder?.firstToken()
      if (!telemetry.wanted) return
      telemetry.publish({ type: 'request.first_token', id: context.id, ...telemetryBase, at: new Date().toISOString(), ttft_ms: round(performance.now() - acceptedAt) })
    }
    const onEnd: GenerationEndObserver = async (result, upstream) => {
      const reported = deps.onCompletion !== undefined || telemetry.wanted
      // An estimate of usage reads the exact count: a long prompt is counted in slices before anything reads it.
      if (result.reportedUsage === undefined && (reported || recorder !== undefined)) await plan.counted()
      // The record is made now when it costs nothing (the model server reported usage) or is
      // reported anyway; otherwise the exchange's record makes it, from the count made above.
      const record = reported || result.reportedUsage !== undefined ? completionRecord(context, result, upstream) : undefined
      recorder?.generationEnded(record === undefined ? generationLater(context, result, upstream) : generationFacts(record, result))
      if (!reported || record === undefined) return
      deps.onCompletion?.(record)
      if (!telemetry.wanted) return
      for (const event of completionEvents(record, performance.now() - acceptedAt, model.price)) telemetry.publish(event)
    }

    if (dedupeRequest !== undefined) {
      const fingerprint = requestFingerprint(body.raw, FINGERPRINT_HEADERS.map((name) => header(req.headers, name)))
      const participation = await deps.dedupe.join(principal.org, dedupeRequest.key, fingerprint, context.id, () => {
        const live = deps.generations.register(context.id, principal.org)
        return {
          reply: generateJsonReply(context, live, onEnd, onFirstToken),
          abort: () => deps.generations.abort(context.id, 'client_disconnected'),
          release: () => live.release(),
        }
      })
      setResponseHeader(res, HeaderName.dedupe, participation.role)
      // Shared responses intentionally carry the leader's completion ID.
      setResponseHeader(res, HeaderName.requestId, participation.id)
      if (telemetry.wanted) telemetry.publish(accepted(participation.id, participation.role))
      whenClientLeaves(res, participation.leave)
      sendJsonReply(res, await participation.reply, context.wire)
      return
    }

    const live = deps.generations.register(context.id, principal.org)
    if (telemetry.wanted) telemetry.publish(accepted(context.id, null))
    // Closing the connection stops the generation, in both phases: before the first byte and mid-stream.
    const stopOnLeave = whenClientLeaves(res, () => deps.generations.abort(context.id, 'client_disconnected'))
    try {
      if (request.stream) {
        await respondWithStream(res, context, live, { pingIntervalMs: deps.pingIntervalMs, onEnd, onFirstToken })
      } else {
        sendJsonReply(res, await generateJsonReply(context, live, onEnd, onFirstToken), context.wire)
      }
    } finally {
      stopOnLeave()
      live.release()
    }
  }
  return async (req, res, principal) => {
    try {
      await handle(req, res, principal)
    } finally {
      // A refused request, or a deduplicated follower, ends the route without a generation's facts.
      recorderOf(req)?.routeEnded()
    }
  }
}

/**
 * Run `onLeave` if the client closes the connection before its response finished — including a
 * client that left while its body was still being read, whose `close` has fired already.
 * Returns a function that stops listening.
 */
export function whenClientLeaves(res: ServerResponse, onLeave: () => void): () => void {
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

/**
 * The stages that rewrite a prompt, where they apply: named tool selection (a conversation with
 * tools) and the optimizer (conversations only; a plain prompt is reported `mode=off`, though a
 * malformed X-Mortar-Optimize is still refused).
 */
function shapePrompt(
  prompt: Prompt,
  headers: IncomingHttpHeaders,
  tokenizer: Tokenizer,
  optimizer: OptimizerSettings,
): { prompt: Prompt; optimizer: string; toolSelector: string | undefined } {
  const selected = prompt.kind === 'messages' ? selectTools(prompt, header(headers, MortarHeader.toolSelect), tokenizer) : { request: prompt, report: undefined }
  const optimized = optimizePrompt(selected.request, header(headers, MortarHeader.optimize), optimizer)
  return { prompt: optimized.request, optimizer: optimized.report, toolSelector: selected.report }
}

function generationFacts(record: CompletionRecord, result: GenerationResult): GenerationFacts {
  const { outcome } = result
  return { record, error: outcome.kind === 'failed' ? outcome.error.toEnvelope().error : null }
}

/** Made at module level: the function holds these three, not the route's whole scope. */
function generationLater(context: CompletionContext, result: GenerationResult, upstream: string | undefined): () => GenerationFacts {
  return () => generationFacts(completionRecord(context, result, upstream), result)
}
