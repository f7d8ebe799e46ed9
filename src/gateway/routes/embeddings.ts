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
import { resolveSession } from '../pipeline/resolve-session'
import { whenClientLeaves } from './generation-route'

export interface EmbeddingsDeps {
  catalog: () => ModelCatalog
  bodyLimitBytes: number
}

/**
 * POST /v1/embeddings (docs/embeddings.md): read body → validate → resolve model → the
 * deployment embeds → the OpenAI list, in float or base64. Not a generation: no stream, nothing
 * to stop by id; a client that leaves hangs up on the model server.
 */
export function embeddings(deps: EmbeddingsDeps): RequestHandler {
  return async (req, res) => {
    const principal = principalOf(req)
    const body = await readJsonBody(req, deps.bodyLimitBytes)
    const parsed = parseEmbeddingsRequest(body.value)
    if (!parsed.ok) throw invalidRequest(parsed.message, parsed.param)
    const { request } = parsed
    const model = deps.catalog().resolve(request.model)
    const { backend } = model
    const session = resolveSession(singleHeader(req.headers[MortarHeader.session]), request.user)
    const recorder = recorderOf(req)
    if (recorder !== undefined) recorder.completion = { model: model.id, deployment: backend.deployment, session: session.name, stream: false }
    res.setHeader(HeaderName.deployment, backend.deployment)
    res.setHeader(HeaderName.model, model.id)
    res.setHeader(HeaderName.session, session.name)
    if (backend.embed === undefined) {
      throw new GatewayError('upstream_not_supported', `The deployment ${backend.deployment} of \`${model.id}\` serves no embeddings.`, { param: 'model' })
    }

    const stop = new StopController<'client_disconnected'>()
    const stopListening = whenClientLeaves(res, () => stop.abort('client_disconnected'))
    let result: EmbeddingsResult
    try {
      result = await backend.embed({ request, signal: stop, observer: recorder })
    } finally {
      stopListening()
    }
    if (stop.aborted) return
    if (recorder !== undefined) {
      const usage = { prompt_tokens: result.promptTokens, completion_tokens: 0, total_tokens: result.promptTokens }
      recorder.generation = () => ({
        record: {
          id: '',
          org: principal.org,
          session: session.name,
          model: model.id,
          deployment: backend.deployment,
          upstream: result.upstream,
          stream: false,
          outcome: 'finished',
          finishReason: undefined,
          finishReasonDerived: false,
          errorCode: undefined,
          usage,
          usageSource: result.usageSource,
        },
        error: null,
      })
    }
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
