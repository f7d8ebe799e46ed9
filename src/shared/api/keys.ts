import { z } from 'zod'
import { dialectSchema } from './dialect'

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

export const apiKeyObjectSchema = z.object({
  object: z.literal('api_key'),
  id: z.string(),
  name: z.string(),
  org: z.string(),
  role: z.enum(KEY_ROLES),
  /** The key's own dialect, or null: it gets the gateway's. */
  dialect: dialectSchema.nullable(),
  /** `mk_live_AbCd…wxYz`: enough to recognise it. */
  hint: z.string(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  status: z.enum(['active', 'expired', 'revoked']),
})
export type ApiKeyObject = z.output<typeof apiKeyObjectSchema>

/** Returned once, at creation or rotation: the only time the key itself is shown. */
export const createdApiKeySchema = apiKeyObjectSchema.extend({ key: z.string() })
export type CreatedApiKey = z.output<typeof createdApiKeySchema>

export const apiKeyListSchema = z.object({ data: z.array(apiKeyObjectSchema) })
