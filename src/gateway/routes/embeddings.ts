import { sentSecrets } from '../capture/redact-credentials'
import type { RequestHandler } from 'express'
import { HeaderName, MortarHeader } from '../../shared/api/headers'
import { float32ToBase64, parseEmbeddingsRequest, type EmbeddingList, type EmbeddingsRequest } from '../../shared/api/embeddings'
import { principalOf } from '../auth/authenticate'
import type { EmbeddingsResult } from '../backends/model-backend'
import { recorderOf } from '../capture/exchange-recorder'
import type { ModelCatalog } from '../config/model-catalog'
import { GatewayError, invalidRequest } from '../errors'
import { StopController } from '../generation/stop-signal'
import { readJsonBody } from '../http/read-json-body'
import { sendJson } from '../http/send-json'
import type { CompletionRecord } from '../pipeline/completion-context'
import { OPTIMIZER_RULESET } from '../pipeline/optimize-prompt'
import { resolveSession } from '../pipeline/resolve-session'
import { randomHex } from '../random-id'
import { completionEvents } from '../telemetry/completion-events'
import type { TelemetryBus } from '../telemetry/telemetry-bus'
import { whenClientLeaves } from './generation-route'

export interface EmbeddingsDeps {
  catalog: () => ModelCatalog
  bodyLimitBytes: number
  telemetry: TelemetryBus
}

/**
 * POST /v1/embeddings (docs/embeddings.md): read body → validate → resolve model → the
 * deployment embeds → the OpenAI list, in float or base64. Not a generation: no stream, nothing
 * to stop by id; a client that leaves hangs up on the model server. Telemetry and Traffic see it
 * as they see a generation: accepted, then finished (its usage and cost), failed or disconnected.
 */
export function embeddings(deps: EmbeddingsDeps): RequestHandler {
  return async (req, res) => {
    const acceptedAt = performance.now()
    const principal = principalOf(req)
    const body = await readJsonBody(req, deps.bodyLimitBytes)
    const parsed = parseEmbeddingsRequest(body.value)
    if (!parsed.ok) throw invalidRequest(parsed.message, parsed.param)
    const { request } = parsed
    const model = deps.catalog().resolve(request.model)
    const { backend } = model
    const session = resolveSession(singleHeader(req.headers[MortarHeader.session]), request.user, () => sentSecrets(req.rawHeaders, req.originalUrl))
    const recorder = recorderOf(req)
    if (recorder !== undefined) recorder.completion = { model: model.id, deployment: backend.deployment, session: session.name, stream: false }
    res.setHeader(HeaderName.deployment, backend.deployment)
    res.setHeader(HeaderName.model, model.id)
    res.setHeader(HeaderName.session, session.name)
    if (backend.embed === undefined) {
      throw new GatewayError('upstream_not_supported', `The deployment ${backend.deployment} of \`${model.id}\` serves no embeddings.`, { param: 'model' })
    }

    // Named like a vLLM embeddings reply; in telemetry and Traffic, as a generation's ID is.
    const id = 'embd-' + randomHex(12)
    res.setHeader(HeaderName.requestId, id)
    const { telemetry } = deps
    if (telemetry.size > 0) {
      telemetry.publish({
        type: 'request.accepted',
        id,
        org: principal.org,
        session: session.name,
        model: model.id,
        at: new Date().toISOString(),
        key_name: principal.keyName,
        deployment: backend.deployment,
        stream: false,
        // No prompt to optimize or tools to select: reported as for a plain completions prompt.
        optimizer: `ruleset=${OPTIMIZER_RULESET}; mode=off`,
        tool_selector: null,
        dedupe: null,
      })
    }
    const ended = (outcome: CompletionRecord['outcome'], result: EmbeddingsResult | undefined, error?: GatewayError) => {
      const promptTokens = result?.promptTokens ?? 0
      const record: CompletionRecord = {
        id,
        org: principal.org,
        session: session.name,
        model: model.id,
        deployment: backend.deployment,
        upstream: result?.upstream,
        stream: false,
        outcome,
        finishReason: undefined,
        finishReasonDerived: false,
        errorCode: error?.code,
        usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens },
        usageSource: result?.usageSource ?? 'estimate',
      }
      if (recorder !== undefined) recorder.generation = { record, error: error?.toEnvelope().error ?? null }
      if (telemetry.size > 0) for (const event of completionEvents(record, performance.now() - acceptedAt, model.price)) telemetry.publish(event)
    }

    const stop = new StopController<'client_disconnected'>()
    const stopListening = whenClientLeaves(res, () => stop.abort('client_disconnected'))
    let result: EmbeddingsResult
    try {
      result = await backend.embed({ request, signal: stop, observer: recorder })
    } catch (error) {
      if (error instanceof GatewayError) ended('failed', undefined, error)
      throw error
    } finally {
      stopListening()
    }
    if (stop.aborted) return ended('client_disconnected', result)
    ended('finished', result)
    if (result.upstream !== undefined) res.setHeader(HeaderName.upstream, result.upstream)
    sendJson(res, 200, embeddingList(model.id, request, result))
  }
}

/** The reply: each vector as float numbers, or as base64 of its little-endian float32 bytes. */
export function embeddingList(model: string, request: EmbeddingsRequest, result: EmbeddingsResult): EmbeddingList {
  const base64 = request.encodingFormat === 'base64'
  return {
    object: 'list',
    data: result.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? float32ToBase64(vector instanceof Float32Array ? vector : Float32Array.from(vector)) : Array.from(vector),
    })),
    model,
    usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
  }
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
