import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiKeyObject, CreatedApiKey } from '../shared/api/keys'
import { startTestGateway, type TestGateway } from './harness'

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway()
})
afterAll(() => gw.close())

const call = (key: string, method: string, path: string, body?: unknown) =>
  fetch(`${gw.url}/v1/keys${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}` },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })

describe('/v1/keys', () => {
  it('lets an owner create a key, shown once, that works with the openai SDK at once', async () => {
    const response = await call(gw.ownerKey, 'POST', '', { name: 'from the UI', role: 'member', expires_in_days: 7 })
    expect(response.status).toBe(201)
    const created = (await response.json()) as CreatedApiKey
    expect(created).toMatchObject({ object: 'api_key', name: 'from the UI', org: 'default', role: 'member', status: 'active', revoked_at: null })
    expect(created.key).toMatch(/^mk_live_/)
    expect(Date.parse(created.expires_at!) - Date.parse(created.created_at)).toBe(7 * 86_400_000)
    const models = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: created.key, maxRetries: 0 }).models.list()
    expect(models.data.length).toBeGreaterThan(0)

    const list = (await (await call(gw.ownerKey, 'GET', '')).json()) as { data: ApiKeyObject[] }
    const listed = list.data.find((k) => k.id === created.id)
    expect(listed).toBeDefined()
    expect(JSON.stringify(list)).not.toContain(created.key)
  })

  it('revokes and rotates, effective on the next request', async () => {
    const created = (await (await call(gw.ownerKey, 'POST', '', { name: 'rotate me' })).json()) as CreatedApiKey
    const rotated = (await (await call(gw.ownerKey, 'POST', `/${created.id}/rotate`)).json()) as CreatedApiKey
    expect(rotated.key).not.toBe(created.key)
    expect((await call(created.key, 'GET', '')).status).toBe(401)
    const revoked = (await (await call(gw.ownerKey, 'POST', `/${rotated.id}/revoke`)).json()) as ApiKeyObject
    expect(revoked.status).toBe('revoked')
    expect((await fetch(`${gw.url}/v1/models`, { headers: { Authorization: `Bearer ${rotated.key}` } })).status).toBe(401)
    const again = await call(gw.ownerKey, 'POST', `/${rotated.id}/revoke`)
    expect(again.status).toBe(400)
  })

  it('needs an owner or admin key; an admin gives out member keys only', async () => {
    const member = gw.createKey({ role: 'member' })
    const forbidden = await call(member, 'GET', '')
    expect(forbidden.status).toBe(403)
    expect(((await forbidden.json()) as { error: { code: string; type: string } }).error).toMatchObject({ code: 'insufficient_role', type: 'permission_error' })
    const admin = gw.createKey({ role: 'admin' })
    expect((await call(admin, 'POST', '', { name: 'x', role: 'owner' })).status).toBe(403)
    expect((await call(admin, 'POST', '', { name: 'x', role: 'member' })).status).toBe(201)
  })

  it('lets an admin manage member keys and itself, never a peer admin or an owner', async () => {
    const org = 'ranks'
    const admin = gw.server.keys.create({ name: 'admin', org, role: 'admin' })
    const peer = gw.server.keys.create({ name: 'peer', org, role: 'admin' })
    const owner = gw.server.keys.create({ name: 'owner', org, role: 'owner' })
    const member = gw.server.keys.create({ name: 'member', org, role: 'member' })
    const refusal = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { error: { code: string } }).error.code })

    expect(await refusal(await call(admin.key, 'POST', '', { name: 'x', role: 'admin' }))).toEqual({ status: 403, code: 'insufficient_role' })
    expect(await refusal(await call(admin.key, 'POST', `/${owner.record.id}/revoke`))).toEqual({ status: 403, code: 'insufficient_role' })
    expect(await refusal(await call(admin.key, 'POST', `/${peer.record.id}/revoke`))).toEqual({ status: 403, code: 'insufficient_role' })
    const stolen = await call(admin.key, 'POST', `/${peer.record.id}/rotate`)
    expect(stolen.status).toBe(403)
    expect(JSON.stringify(await stolen.json())).not.toContain('mk_live_')
    expect(await refusal(await call(admin.key, 'POST', `/${owner.record.id}/rotate`))).toEqual({ status: 403, code: 'insufficient_role' })
    // Nothing changed: the peer and the owner still work.
    expect((await call(peer.key, 'GET', '')).status).toBe(200)
    expect((await call(owner.key, 'GET', '')).status).toBe(200)

    expect((await call(admin.key, 'POST', `/${member.record.id}/rotate`)).status).toBe(200)
    const self = (await (await call(admin.key, 'POST', `/${admin.record.id}/rotate`)).json()) as CreatedApiKey
    expect(self.role).toBe('admin')
    expect((await call(self.key, 'POST', `/${self.id}/revoke`)).status).toBe(200)
    // An owner manages admins.
    expect((await call(owner.key, 'POST', `/${peer.record.id}/revoke`)).status).toBe(200)
  })

  it("never revokes an organization's last active owner key; rotating it keeps an owner", async () => {
    const org = 'solo'
    const first = gw.server.keys.create({ name: 'first owner', org, role: 'owner' })
    const last = await call(first.key, 'POST', `/${first.record.id}/revoke`)
    expect(last.status).toBe(409)
    expect(((await last.json()) as { error: { code: string; type: string; message: string } }).error).toMatchObject({
      code: 'last_owner',
      type: 'conflict_error',
      message: expect.stringContaining('last active owner key of solo') as unknown as string,
    })
    expect((await call(first.key, 'GET', '')).status).toBe(200)

    const rotated = (await (await call(first.key, 'POST', `/${first.record.id}/rotate`)).json()) as CreatedApiKey
    expect(rotated).toMatchObject({ role: 'owner', status: 'active' })
    const second = (await (await call(rotated.key, 'POST', '', { name: 'second owner', role: 'owner' })).json()) as CreatedApiKey
    expect((await call(second.key, 'POST', `/${rotated.id}/revoke`)).status).toBe(200)
    expect((await call(second.key, 'POST', `/${second.id}/revoke`)).status).toBe(409)
  })

  it("keeps organizations apart: another org's key looks unknown", async () => {
    const created = (await (await call(gw.ownerKey, 'POST', '', { name: 'mine' })).json()) as CreatedApiKey
    const otherOwner = gw.createKey({ org: 'other-org', role: 'owner' })
    const theirList = (await (await call(otherOwner, 'GET', '')).json()) as { data: ApiKeyObject[] }
    expect(theirList.data.every((k) => k.org === 'other-org')).toBe(true)
    expect((await call(otherOwner, 'POST', `/${created.id}/revoke`)).status).toBe(404)
    expect((await call(otherOwner, 'POST', '/key_doesnotexist/revoke')).status).toBe(404)
    const made = (await (await call(otherOwner, 'POST', '', { name: 'theirs' })).json()) as CreatedApiKey
    expect(made.org).toBe('other-org')
  })

  it('names keys.json when it is corrupt, instead of a 500 internal_error', async () => {
    const other = await startTestGateway()
    try {
      writeFileSync(join(other.home, 'keys.json'), '{ "version": 1, "keys": [ oops')
      for (const [method, body] of [['GET', undefined], ['POST', { name: 'x' }]] as const) {
        const response = await fetch(`${other.url}/v1/keys`, {
          method,
          headers: { Authorization: `Bearer ${other.ownerKey}` },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        })
        expect(response.status).toBe(503)
        expect(response.headers.get('x-should-retry')).toBe('false')
        const { error } = (await response.json()) as { error: { code: string; type: string; message: string } }
        expect(error).toMatchObject({ code: 'key_file_error', type: 'server_error' })
        expect(error.message).toContain(`The key file ${join(other.home, 'keys.json')} is not valid JSON`)
      }
    } finally {
      await other.close()
    }
  })

  it('validates the body', async () => {
    for (const body of [{}, { name: '' }, { name: 'x', role: 'god' }, { name: 'x', expires_in_days: 0 }, { name: 'x', expires_in_days: 1.5 }]) {
      const response = await call(gw.ownerKey, 'POST', '', body)
      expect(response.status).toBe(400)
    }
    expect(((await (await call(gw.ownerKey, 'POST', '', { name: 'forever', expires_in_days: null })).json()) as CreatedApiKey).expires_at).toBeNull()
  })
})
