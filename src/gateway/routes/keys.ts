import express, { type Request, type RequestHandler } from 'express'
import { createKeyRequestSchema, type ApiKeyObject, type KeyRole } from '../../shared/api/keys'
import { formatParamPath } from '../../shared/api/chat-request'
import { principalOf } from '../auth/authenticate'
import { keyStatus, type KeyRecord } from '../auth/key-records'
import { KeyStoreError, type KeyStore, type Principal } from '../auth/key-store'
import { GatewayError, invalidRequest } from '../errors'
import { readJsonBody } from '../http/read-json-body'
import { sendJson } from '../http/send-json'

const RANK: Record<KeyRole, number> = { member: 0, admin: 1, owner: 2 }

/**
 * `/v1/keys`: an organization's API keys, for its owners and admins (the quickstart's rule: creating
 * keys needs the Admin or Owner role). Everything is scoped to the caller's organization; a key of
 * another org looks exactly like an unknown one. A key can give out at most its own role.
 */
export function keysRouter(keys: KeyStore): express.Router {
  const router = express.Router()
  router.use(requireRole('admin'))
  router.get('/', (req, res) => {
    const org = principalOf(req).org
    sendJson(res, 200, { object: 'list', data: keys.list().filter((r) => r.org === org).map(toObject) })
  })
  router.post('/', async (req, res) => {
    const principal = principalOf(req)
    const parsed = createKeyRequestSchema.safeParse((await readJsonBody(req, 64 * 1024)).value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const param = issue ? formatParamPath(issue.path) : null
      throw invalidRequest(`Invalid \`${param ?? 'body'}\`: ${issue?.message ?? 'is invalid'}.`, param)
    }
    if (RANK[parsed.data.role] > RANK[principal.role]) throw forbidden(`A ${principal.role} key cannot create ${parsed.data.role} keys.`)
    const created = keys.create({
      name: parsed.data.name,
      role: parsed.data.role,
      org: principal.org,
      ...(parsed.data.expires_in_days !== undefined ? { expiresInDays: parsed.data.expires_in_days } : {}),
    })
    sendJson(res, 201, { ...toObject(created.record), key: created.key })
  })
  router.post('/:id/revoke', (req, res) => {
    const record = ownRecord(keys, req)
    sendJson(res, 200, toObject(storeCall(() => keys.revoke(record.id))))
  })
  router.post('/:id/rotate', (req, res) => {
    const record = ownRecord(keys, req)
    if (RANK[record.role] > RANK[principalOf(req).role]) throw forbidden(`A ${principalOf(req).role} key cannot rotate ${record.role} keys.`)
    const rotated = storeCall(() => keys.rotate(record.id))
    sendJson(res, 200, { ...toObject(rotated.record), key: rotated.key })
  })
  return router
}

function requireRole(minimum: KeyRole): RequestHandler {
  return (req, _res, next) => {
    const principal: Principal = principalOf(req)
    if (RANK[principal.role] < RANK[minimum]) return next(forbidden('Managing keys needs an owner or admin key.'))
    next()
  }
}

function ownRecord(keys: KeyStore, req: Request): KeyRecord {
  const id = String(req.params.id ?? '')
  const record = keys.list().find((r) => r.id === id && r.org === principalOf(req).org)
  if (record === undefined) {
    throw new GatewayError({ status: 404, type: 'not_found_error', code: 'key_not_found', message: `No key has the ID ${id}.`, param: 'id' })
  }
  return record
}

/** The store's refusals (already revoked…) are the caller's to fix: 400, with its message. */
function storeCall<T>(call: () => T): T {
  try {
    return call()
  } catch (error) {
    if (error instanceof KeyStoreError) throw invalidRequest(error.message)
    throw error
  }
}

const forbidden = (message: string) =>
  new GatewayError({ status: 403, type: 'permission_error', code: 'insufficient_role', message, retryable: false })

function toObject(record: KeyRecord): ApiKeyObject {
  return {
    object: 'api_key',
    id: record.id,
    name: record.name,
    org: record.org,
    role: record.role,
    hint: record.hint,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
    status: keyStatus(record, new Date()),
  }
}
