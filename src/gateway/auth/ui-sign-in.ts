import { hash, randomBytes } from 'node:crypto'
import type { KeyStore } from './key-store'

/** How long a printed UI link works, unless it is used first. */
export const SIGN_IN_CODE_LIFETIME_MS = 5 * 60_000

export type SignInResult = { ok: true; key: string } | { ok: false; reason: 'used' | 'expired' | 'unknown' }

interface IssuedCode {
  expiresAt: number
  used: boolean
}

/**
 * The one-time codes in the UI links `mortar serve` prints (`/#code=…`). A URL ends up in the
 * browser's history, session and tab files, and history sync can carry it off the machine, so it
 * must not hold anything that still works later: a code signs in once, within
 * SIGN_IN_CODE_LIFETIME_MS. The page exchanges it (POST /ui/sign-in) for the tab's credential, a
 * per-launch owner key named `ui` that lives in that tab's sessionStorage and dies with the process.
 * Codes are 192 random bits, kept only as hashes, in memory.
 */
export class UiSignInCodes {
  private readonly codes = new Map<string, IssuedCode>()

  constructor(
    private readonly keys: KeyStore,
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs = SIGN_IN_CODE_LIFETIME_MS,
  ) {}

  issue(): string {
    this.forgetExpired()
    const code = randomBytes(24).toString('base64url')
    this.codes.set(codeHash(code), { expiresAt: this.now() + this.lifetimeMs, used: false })
    return code
  }

  exchange(code: string): SignInResult {
    this.forgetExpired()
    const issued = this.codes.get(codeHash(code))
    if (issued === undefined) return { ok: false, reason: 'unknown' }
    if (issued.used) return { ok: false, reason: 'used' }
    if (issued.expiresAt <= this.now()) return { ok: false, reason: 'expired' }
    // Kept, marked used, until it would have expired: a second try is told why it is refused.
    issued.used = true
    return { ok: true, key: this.keys.createEphemeral('ui') }
  }

  private forgetExpired(): void {
    // Expired ones are kept one more lifetime, so that a late try hears "expired", not "unknown".
    const now = this.now()
    for (const [hashed, issued] of this.codes) if (issued.expiresAt + this.lifetimeMs <= now) this.codes.delete(hashed)
  }
}

function codeHash(code: string): string {
  return hash('sha256', code, 'hex')
}
