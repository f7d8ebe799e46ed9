import { z } from 'zod'
import { dialectSchema, type Dialect } from './dialect'

/**
 * The key-management API (`/v1/keys`, docs/api-decisions.md#keys): one source of truth for its
 * request body and its objects, shared by the gateway and the renderer's settings page.
 */
export const KEY_ROLES = ['owner', 'admin', 'member'] as const
export type KeyRole = (typeof KEY_ROLES)[number]

export const createKeyRequestSchema = z.object({
  name: z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }),
  role: z.enum(KEY_ROLES, { error: "must be 'owner', 'admin' or 'member'" }).default('member'),
  /** Days until it expires, or null for never; 30 when left out. */
  expires_in_days: z
    .number({ error: 'must be a whole number of days or null' })
    .int({ error: 'must be a whole number of days or null' })
    .min(1, { error: 'must be at least 1' })
    .max(36_500, { error: 'must be at most 36500' })
    .nullable()
    .optional(),
  /** The API dialect the key's requests get; null or left out: the gateway's. */
  dialect: dialectSchema.nullable().optional(),
})
export type CreateKeyRequest = z.output<typeof createKeyRequestSchema>

export interface ApiKeyObject {
  object: 'api_key'
  id: string
  name: string
  org: string
  role: KeyRole
  /** The key's own dialect, or null: it gets the gateway's. */
  dialect: Dialect | null
  /** `mk_live_AbCd…wxYz`: enough to recognise it. */
  hint: string
  created_at: string
  expires_at: string | null
  revoked_at: string | null
  status: 'active' | 'expired' | 'revoked'
}

/** Returned once, at creation or rotation: the only time the key itself is shown. */
export interface CreatedApiKey extends ApiKeyObject {
  key: string
}
