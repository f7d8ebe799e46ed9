import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KeyStore } from './key-store'
import { SIGN_IN_CODE_LIFETIME_MS, UiSignInCodes } from './ui-sign-in'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mortar-signin-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('UiSignInCodes', () => {
  it('refuses a code past its lifetime as expired, then forgets it', () => {
    let now = 1_000_000
    const codes = new UiSignInCodes(new KeyStore(join(dir, 'keys.json')), () => now)
    const late = codes.issue()
    const inTime = codes.issue()
    now += SIGN_IN_CODE_LIFETIME_MS - 1
    expect(codes.exchange(inTime)).toMatchObject({ ok: true })
    now += 1
    expect(codes.exchange(late)).toEqual({ ok: false, reason: 'expired' })
    expect(codes.exchange(inTime)).toEqual({ ok: false, reason: 'used' })
    now += SIGN_IN_CODE_LIFETIME_MS
    expect(codes.exchange(late)).toEqual({ ok: false, reason: 'unknown' })
  })

  it('gives every trade its own credential, and codes are not guessable from each other', () => {
    const codes = new UiSignInCodes(new KeyStore(join(dir, 'keys.json')))
    const [a, b] = [codes.issue(), codes.issue()]
    expect(a).not.toBe(b)
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/)
    const [ka, kb] = [codes.exchange(a), codes.exchange(b)]
    expect(ka.ok && kb.ok && ka.key !== kb.key).toBe(true)
  })
})
