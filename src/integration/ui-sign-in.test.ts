import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestGateway, type TestGateway } from './harness'

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway()
})
afterAll(() => gw.close())

const signIn = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/ui/sign-in`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) })

const refusal = async (response: Response) => {
  const { error } = (await response.json()) as { error: { code: string; type: string; message: string } }
  return { status: response.status, ...error }
}

function printedCode(): string {
  const line = gw.output.find((l) => l.trimStart().startsWith('UI:'))
  const code = line === undefined ? undefined : /\/#code=([A-Za-z0-9_-]+)\s/.exec(line)?.[1]
  if (code === undefined) throw new Error(`no UI link with a code in:\n${gw.output.join('\n')}`)
  return code
}

describe('the UI link: a one-time code, traded once for the tab credential', () => {
  it('prints a code, not a key, and no credential anywhere in the output but the first-run key', async () => {
    const uiLine = gw.output.find((l) => l.trimStart().startsWith('UI:'))
    expect(uiLine).toMatch(/^ {2}UI: {14}http:\/\/127\.0\.0\.1:\d+\/#code=[A-Za-z0-9_-]{32} {2}\(signs in once, within 5 minutes\)$/)
    expect(uiLine).not.toContain('mk_live_')
  })

  it('trades the code once for a per-launch owner credential; a second try is refused and says why', async () => {
    const code = printedCode()
    const response = await signIn({ code })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const { key } = (await response.json()) as { key: string }
    expect(gw.server.keys.authenticate(key)).toMatchObject({ ok: true, principal: { keyName: 'ui', org: 'default', role: 'owner' } })
    expect((await fetch(`${gw.url}/v1/keys`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200)
    expect(gw.output.join('\n')).not.toContain(key)

    const again = await signIn({ code })
    expect(again.headers.get('x-should-retry')).toBe('false')
    expect(await refusal(again)).toMatchObject({
      status: 401,
      type: 'authentication_error',
      code: 'invalid_sign_in_code',
      message: expect.stringContaining('This UI link is no longer valid: it was already used.') as unknown as string,
    })
  })

  it('refuses a code it never issued, a malformed body, and any other web page', async () => {
    expect(await refusal(await signIn({ code: 'x'.repeat(32) }))).toMatchObject({
      status: 401,
      code: 'invalid_sign_in_code',
      message: expect.stringContaining('this gateway did not issue it') as unknown as string,
    })
    expect(await refusal(await signIn({ nope: 1 }))).toMatchObject({ status: 400, param: 'code' })
    const fresh = gw.server.gateway.signInCodes.issue()
    expect((await signIn({ code: fresh }, { Origin: 'https://evil.example' })).status).toBe(403)
    // The refused page did not use it up.
    expect((await signIn({ code: fresh })).status).toBe(200)
  })
})
