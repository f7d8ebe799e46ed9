import { hash, randomBytes } from 'node:crypto'

export const API_KEY_PREFIX = 'mk_live_'
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const SECRET_LENGTH = 40 // 40 base62 characters ≈ 238 bits

/** A new key in clear: shown once at creation, then only its hash is kept. */
export function generateApiKey(): string {
  // Rejection sampling keeps every character uniformly likely (256 is not a multiple of 62).
  let secret = ''
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(SECRET_LENGTH)) {
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += BASE62[byte % 62]
    }
  }
  return API_KEY_PREFIX + secret
}

/**
 * Keys are random with ~238 bits of entropy, so a fast hash is enough: there is nothing to
 * brute-force, and a slow KDF would cost every request. Looking a key up by its hash also means no
 * comparison ever runs over the secret itself.
 */
export function hashApiKey(key: string): string {
  // One-shot `crypto.hash`: a quarter of createHash()'s cost, which every request pays.
  return 'sha256:' + hash('sha256', key, 'hex')
}

/** What lists show instead of the key: enough to recognise it, too little to use it. */
export function apiKeyHint(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 4)}…${key.slice(-4)}`
}

export function newKeyId(): string {
  return 'key_' + randomBytes(8).toString('hex')
}
