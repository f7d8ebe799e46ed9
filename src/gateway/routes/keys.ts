import express, { type Request, type RequestHandler } from 'express'
import { createKeyRequestSchema, type ApiKeyObject, type KeyRole } from '../../shared/api/keys'
import { firstIssue, invalidFieldMessage } from '../../shared/api/first-issue'
import { principalOf } from '../auth/authenticate'
import { keyStatus, type KeyRecord } from '../auth/key-records'
import { KeyFileBusyError, KeyFileError, KeyNotFoundError, KeyStoreError, KeysUnavailableError, type KeyChange, type KeyStore, type Principal } from '../auth/key-store'
import { GatewayError, invalidRequest } from '../errors'
import { readJsonBody } from '../http/read-json-body'
import { sendJson } from '../http/send-json'

const RANK: Record<KeyRole, number> = { member: 0, admin: 1, owner: 2 }

/**
 * `/v1/keys`: an organization's API keys, for its owners and admins (the quickstart's rule: creating
 * keys needs the Admin or Owner role). Everything is scoped to the caller's organization; a key of
 * another org looks exactly like an unknown one. Who may act on which key (`mayManage`): an owner on
 * any key of its org, an admin on member keys and on itself — never on a peer admin or an owner.
 * No change may leave an organization without an active owner key. Every change is checked
 * against the keys as the store holds them when it is applied (KeyStore.change: under keys.json's
 * lock, or against Redis's version for a cluster).
 */
export function keysRouter(keys: KeyStore): express.Router {
  const router = express.Router()
  router.use(requireRole('admin'))
  router.get('/', (req, res) => {
    const org = principalOf(req).org
    sendJson(res, 200, { object: 'list', data: listKeys(keys).filter((r) => r.org === org).map(toObject) })
  })
  router.post('/', async (req, res) => {
    const principal = principalOf(req)
    const parsed = createKeyRequestSchema.safeParse((await readJsonBody(req, 64 * 1024)).value)
    if (!parsed.success) {
      const issue = firstIssue(parsed.error)
      throw invalidRequest(invalidFieldMessage(issue, 'body'), issue.param)
    }
    if (!mayManage(principal, parsed.data.role, false)) throw forbidden(`A ${principal.role} key cannot create ${parsed.data.role} keys.`)
    const created = await applyChange(
      keys,
      keys.creation({
        name: parsed.data.name,
        role: parsed.data.role,
        org: principal.org,
        ...(parsed.data.expires_in_days !== undefined ? { expiresInDays: parsed.data.expires_in_days } : {}),
        ...(parsed.data.dialect !== undefined ? { dialect: parsed.data.dialect } : {}),
      }),
    )
    sendJson(res, 201, { ...toObject(created.record), key: created.key })
  })
  router.post('/:id/revoke', async (req, res) => {
    const principal = principalOf(req)
    const revoked = await applyChange(
      keys,
      keys.revocation(keyIdParam(req), (target, records) => {
        authorize(principal, target, 'revoke')
        if (isLastOwner(target, records)) {
          throw new GatewayError(
            'last_owner',
            `The key ${target.id} is the last active owner key of ${target.org}; create another owner key before revoking it.`,
          )
        }
      }),
    )
    sendJson(res, 200, toObject(revoked))
  })
  router.post('/:id/rotate', async (req, res) => {
    const principal = principalOf(req)
    // A rotation keeps the role, so it never changes how many owners an organization has.
    const rotated = await applyChange(keys, keys.rotation(keyIdParam(req), (target) => authorize(principal, target, 'rotate')))
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

/** Owners manage every key of their organization; admins manage member keys, and themselves. */
function mayManage(principal: Principal, role: KeyRole, isSelf: boolean): boolean {
  return principal.role === 'owner' || isSelf || RANK[role] < RANK[principal.role]
}

function authorize(principal: Principal, target: KeyRecord, action: 'revoke' | 'rotate'): void {
  if (target.org !== principal.org) throw keyNotFound(target.id)
  if (!mayManage(principal, target.role, target.id === principal.keyId)) {
    throw forbidden(`A ${principal.role} key cannot ${action} ${target.role === 'admin' ? 'another admin' : 'an owner'}'s key.`)
  }
}

/** Whether removing `target` would leave its organization without an active owner key in the file. */
function isLastOwner(target: KeyRecord, records: readonly KeyRecord[]): boolean {
  const now = new Date()
  const isActiveOwner = (r: KeyRecord) => r.org === target.org && r.role === 'owner' && keyStatus(r, now) === 'active'
  return isActiveOwner(target) && !records.some((r) => r.id !== target.id && isActiveOwner(r))
}

function keyIdParam(req: Request): string {
  return String(req.params.id ?? '')
}

const keyNotFound = (id: string) =>
  new GatewayError('key_not_found', `No key has the ID ${id}.`, { param: 'id' })

/**
 * The store's refusals mapped to the API: the key file's own problems (corrupt, unwritable, locked
 * too long) and an unreachable Redis are the server's, named; anything else (already revoked…) is
 * the caller's to fix.
 */
function apiError(error: unknown): unknown {
  if (error instanceof KeyNotFoundError) return keyNotFound(error.id)
  if (error instanceof KeyFileBusyError) return new GatewayError('key_file_busy', error.message)
  if (error instanceof KeyFileError) return new GatewayError('key_file_error', error.message)
  if (error instanceof KeysUnavailableError) return new GatewayError('keys_unavailable', error.message)
  if (error instanceof KeyStoreError) return invalidRequest(error.message)
  return error
}

function listKeys(keys: KeyStore): KeyRecord[] {
  try {
    return keys.list()
  } catch (error) {
    throw apiError(error)
  }
}

function applyChange<T>(keys: KeyStore, change: KeyChange<T>): Promise<T> {
  return keys.change(change).catch((error: unknown) => Promise.reject(apiError(error)))
}

const forbidden = (message: string) =>
  new GatewayError('insufficient_role', message)

function toObject(record: KeyRecord): ApiKeyObject {
  return {
    object: 'api_key',
    id: record.id,
    name: record.name,
    org: record.org,
    role: record.role,
    dialect: record.dialect,
    hint: record.hint,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
    status: keyStatus(record, new Date()),
  }
}
