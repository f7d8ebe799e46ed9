import { randomBytes } from 'node:crypto'
import type { RequestHandler } from 'express'
import { MortarHeader } from '../../shared/api/headers'
import { principalOf } from '../auth/authenticate'
import type { ModelCatalog } from '../config/model-catalog'
import type { GenerationRegistry } from '../generation/generation-registry'
import { readJsonBody } from '../http/read-json-body'
import type { CompletionContext, CompletionObserver } from '../pipeline/completion-context'
import { optimizePrompt } from '../pipeline/optimize-prompt'
import { planTokens } from '../pipeline/plan-tokens'
import { resolveSession } from '../pipeline/resolve-session'
import { respondWithJson } from '../pipeline/respond-json'
import { respondWithStream } from '../pipeline/respond-stream'
import { validateChatRequest } from '../pipeline/validate-request'

export interface ChatCompletionsDeps {
  catalog: () => ModelCatalog
  generations: GenerationRegistry
  bodyLimitBytes: number
  pingIntervalMs: number
  onRecord: CompletionObserver | undefined
}

/**
 * POST /v1/chat/completions, as a pipeline of stages (auth ran before this handler):
 * read body → validate → resolve model → session → optimize → plan tokens → generate → respond.
 * Each stage throws a GatewayError to refuse; none of them writes to the response but the last.
 */
export function chatCompletions(deps: ChatCompletionsDeps): RequestHandler {
  return async (req, res) => {
    const principal = principalOf(req)
    const created = Math.floor(Date.now() / 1000)
    const body = await readJsonBody(req, deps.bodyLimitBytes)
    const request = validateChatRequest(body)
    const model = deps.catalog().resolve(request.model)
    const session = resolveSession(header(req.headers[MortarHeader.session]), request.user)
    const optimizer = optimizePrompt(header(req.headers[MortarHeader.optimize]))
    const plan = planTokens(model, request)

    const context: CompletionContext = { id: newCompletionId(), created, principal, request, model, session, plan }
    res.setHeader('X-Mortar-Request-Id', context.id)
    res.setHeader('X-Mortar-Deployment', model.backend.deployment)
    res.setHeader('X-Mortar-Model', model.id)
    res.setHeader('X-Mortar-Session', session.name)
    res.setHeader('X-Mortar-Optimizer', optimizer.report)

    const live = deps.generations.register(context.id, principal.org)
    // Closing the connection stops the generation, in both phases: before the first byte and mid-stream.
    const onClose = () => {
      if (!res.writableFinished) deps.generations.abort(context.id, 'client_disconnected')
    }
    res.on('close', onClose)
    // A client that left while its body was read or validated has closed already: no work for it.
    if (res.destroyed) deps.generations.abort(context.id, 'client_disconnected')
    try {
      if (request.stream) await respondWithStream(res, context, live, deps)
      else await respondWithJson(res, context, live, deps.onRecord)
    } finally {
      res.off('close', onClose)
      live.release()
    }
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** `chatcmpl-` and 24 hexadecimal characters, as the reference specifies. */
export function newCompletionId(): string {
  return 'chatcmpl-' + randomBytes(12).toString('hex')
}
