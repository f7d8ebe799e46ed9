// HTTP calls to the gateway with the UI's key. Plain fetch: EventSource cannot send an
// Authorization header, so streams are read from fetch's ReadableStream too.
import { modelListSchema, stopGenerationResponseSchema, type ModelObject, type StopGenerationResponse } from '../../../shared/api/chat-response'
import { errorEnvelopeSchema } from '../../../shared/api/errors'
import { statusResponseSchema, type StatusResponse } from '../../../shared/api/health'
import { apiKeyListSchema, apiKeyObjectSchema, createdApiKeySchema, type ApiKeyObject, type CreatedApiKey, type CreateKeyRequest } from '../../../shared/api/keys'
import { sessionPrefixesPath, sessionPrefixesSchema, type SessionPrefixes } from '../../../shared/api/session-prefixes'
import {
  captureStatusSchema,
  clearResultSchema,
  exchangeListSchema,
  exchangeSchema,
  trafficQueryString,
  TrafficPath,
  type CaptureMode,
  type CaptureStatus,
  type ClearResult,
  type Exchange,
  type ExchangeList,
  type ExchangeFilterParams,
  type ExportParams,
  type SetCaptureModeRequest,
} from '../../../shared/api/traffic'
import type { Connection } from './desktop'

export class GatewayHttpError extends Error {
  override name = 'GatewayHttpError'
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
  ) {
    super(message)
  }
}

/** The gateway's message when it refused for want of a role (403), else null. */
export function insufficientRole(error: unknown): string | null {
  if (!(error instanceof GatewayHttpError) || error.status !== 403) return null
  return error.message
}

async function errorOf(response: Response): Promise<GatewayHttpError> {
  const text = await response.text().catch(() => '')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  const envelope = errorEnvelopeSchema.safeParse(json)
  if (envelope.success) return new GatewayHttpError(response.status, envelope.data.error.message, envelope.data.error.code ?? null)
  return new GatewayHttpError(response.status, text || `HTTP ${response.status}`, null)
}

/** Told when the gateway answers 401: the key is dead (a restarted gateway, a revoked key). */
export type UnauthorizedListener = (error: GatewayHttpError) => void

export class GatewayClient {
  constructor(
    readonly connection: Connection,
    private readonly onUnauthorized: UnauthorizedListener = () => {},
  ) {}

  /**
   * Every call to the gateway goes through here, so a 401 from any of them (a chat request, the
   * telemetry stream, key management) is noticed in one place.
   */
  private async send(path: string, init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> }): Promise<Response> {
    const response = await fetch(this.url(path), { ...init, headers: { ...this.authHeaders(), ...init.headers } })
    if (response.status === 401) {
      const error = await errorOf(response.clone())
      this.onUnauthorized(error)
    }
    return response
  }

  /** Absolute URL of a gateway path (the page's origin in a browser). */
  url(path: string): string {
    return new URL(`${this.connection.baseUrl}${path}`, window.location.href).href
  }

  authHeaders(): Record<string, string> {
    return { Authorization: `Bearer ${this.connection.key}` }
  }

  async listModels(signal?: AbortSignal): Promise<ModelObject[]> {
    const response = await this.send('/v1/models', { signal: signal ?? null, cache: 'no-store' })
    if (!response.ok) throw await errorOf(response)
    return modelListSchema.parse(await response.json()).data
  }

  /** GET /v1/status: each deployment's model servers, with their last errors. */
  async status(signal?: AbortSignal): Promise<StatusResponse> {
    const response = await this.send('/v1/status', { signal: signal ?? null, cache: 'no-store' })
    if (!response.ok) throw await errorOf(response)
    return statusResponseSchema.parse(await response.json())
  }

  /** Stops a generation by its completion ID: any generation of the key's organization. */
  async stopGeneration(id: string): Promise<{ status: number; body: StopGenerationResponse }> {
    const response = await this.send(`/v1/generations/${encodeURIComponent(id)}/stop`, { method: 'POST' })
    if (response.status !== 200 && response.status !== 404) throw await errorOf(response)
    return { status: response.status, body: stopGenerationResponseSchema.parse(await response.json()) }
  }

  postChat(body: unknown, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    return this.send('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
      cache: 'no-store',
    })
  }

  // Key management (`/v1/keys`): owner and admin keys only, so a member key gets 403
  // `insufficient_role`, thrown as a GatewayHttpError like any other refusal.

  async listKeys(signal?: AbortSignal): Promise<ApiKeyObject[]> {
    const response = await this.send('/v1/keys', { signal: signal ?? null, cache: 'no-store' })
    if (!response.ok) throw await errorOf(response)
    return apiKeyListSchema.parse(await response.json()).data
  }

  /** The new key is in the answer, and only there: Mortar keeps its hash. */
  async createKey(request: CreateKeyRequest): Promise<CreatedApiKey> {
    return createdApiKeySchema.parse(await this.postKeys('', request))
  }

  async revokeKey(id: string): Promise<ApiKeyObject> {
    return apiKeyObjectSchema.parse(await this.postKeys(`/${encodeURIComponent(id)}/revoke`))
  }

  /** Revokes the key and makes its replacement (same name, role and org), shown once. */
  async rotateKey(id: string): Promise<CreatedApiKey> {
    return createdApiKeySchema.parse(await this.postKeys(`/${encodeURIComponent(id)}/rotate`))
  }

  /** The JSON answer, for the caller to parse against its schema. */
  private async postKeys(path: string, body?: unknown): Promise<unknown> {
    const response = await this.send(`/v1/keys${path}`, {
      method: 'POST',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: 'no-store',
    })
    if (!response.ok) throw await errorOf(response)
    return response.json()
  }

  openTelemetry(signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    return this.openStream('/v1/telemetry', signal)
  }

  // The traffic API (`/v1/traffic/…`): captured exchanges of the key's organization.

  async listExchanges(params: ExchangeFilterParams & { limit?: number; cursor?: string }, signal?: AbortSignal): Promise<ExchangeList> {
    const response = await this.send(`${TrafficPath.exchanges}${trafficQueryString(params)}`, { signal: signal ?? null, cache: 'no-store' })
    if (!response.ok) throw await errorOf(response)
    return exchangeListSchema.parse(await response.json())
  }

  async getExchange(id: string, signal?: AbortSignal): Promise<Exchange> {
    const response = await this.send(TrafficPath.exchange(id), { signal: signal ?? null, cache: 'no-store' })
    if (!response.ok) throw await errorOf(response)
    return exchangeSchema.parse(await response.json())
  }

  async clearExchanges(): Promise<ClearResult> {
    const response = await this.send(TrafficPath.exchanges, { method: 'DELETE', cache: 'no-store' })
    if (!response.ok) throw await errorOf(response)
    return clearResultSchema.parse(await response.json())
  }

  /** The capture mode and the store's limits; null from a gateway without the traffic API. */
  async captureStatus(signal?: AbortSignal): Promise<CaptureStatus | null> {
    const response = await this.send(TrafficPath.status, { signal: signal ?? null, cache: 'no-store' })
    if (response.status === 404) return null
    if (!response.ok) throw await errorOf(response)
    return captureStatusSchema.parse(await response.json())
  }

  /** HAR 1.2 or JSON Lines of the exchanges the parameters select, as a file's contents. */
  async exportExchanges(params: ExportParams): Promise<Blob> {
    const response = await this.send(`${TrafficPath.export}${trafficQueryString(params)}`, { cache: 'no-store' })
    if (!response.ok) throw await errorOf(response)
    return response.blob()
  }

  /** GET /v1/traffic/sessions/{session}/prefixes: each prompt's shared prefix with the previous one, in tokens. */
  async sessionPrefixes(session: string, signal?: AbortSignal): Promise<SessionPrefixes> {
    const response = await this.send(sessionPrefixesPath(session), { signal: signal ?? null, cache: 'no-store' })
    if (!response.ok) throw await errorOf(response)
    return sessionPrefixesSchema.parse(await response.json())
  }

  async openTrafficLive(signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    return this.openStream(TrafficPath.live, signal)
  }

  /** GET /v1/traffic/exchanges/{id}/live: one exchange's snapshot, its frames as they come, its end. */
  async openExchangeLive(id: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    return this.openStream(TrafficPath.exchangeLive(id), signal)
  }

  /** PUT /v1/traffic/mode: the running gateway's capture mode, now (owner and admin keys). */
  async setCaptureMode(mode: CaptureMode): Promise<CaptureStatus> {
    const body: SetCaptureModeRequest = { mode }
    const response = await this.send(TrafficPath.mode, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      cache: 'no-store',
    })
    if (!response.ok) throw await errorOf(response)
    return captureStatusSchema.parse(await response.json())
  }

  private async openStream(path: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const response = await this.send(path, { signal, cache: 'no-store' })
    if (!response.ok) throw await errorOf(response)
    if (response.body === null) throw new Error(`${path} answered without a body.`)
    return response.body
  }
}
