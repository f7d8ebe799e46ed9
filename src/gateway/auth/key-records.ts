import { z } from 'zod'
import { dialectSchema } from '../../shared/api/dialect'

export const ROLES = ['owner', 'admin', 'member'] as const
export type Role = (typeof ROLES)[number]
export const DEFAULT_ORG = 'default'
export const DEFAULT_KEY_LIFETIME_DAYS = 30

/** One API key as stored in `keys.json`: never the key itself, only its hash and a hint. */
export const keyRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  org: z.string(),
  role: z.enum(ROLES),
  hash: z.string().startsWith('sha256:'),
  hint: z.string(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  /** The key this one replaced by `mortar keys rotate`, for the audit trail. */
  rotatedFrom: z.string().nullable().default(null),
  /** The dialect this key's requests get; null (and in files written before it existed): the gateway's. */
  dialect: dialectSchema.nullable().default(null),
})
export type KeyRecord = z.output<typeof keyRecordSchema>

export const keyFileSchema = z.object({
  version: z.literal(1),
  keys: z.array(keyRecordSchema),
})
export type KeyFile = z.output<typeof keyFileSchema>

export type KeyStatus = 'active' | 'expired' | 'revoked'

export function keyStatus(record: KeyRecord, now: Date): KeyStatus {
  if (record.revokedAt !== null) return 'revoked'
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now.getTime()) return 'expired'
  return 'active'
}

/** Org and key names: visible in lists and telemetry, so kept to a safe, printable set. */
export const ORG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
