import { existsSync } from 'node:fs'
import type { RequestListener } from 'node:http'
import express from 'express'
import { principalOf, rememberPrincipal } from './auth/authenticate'
import { KeyBoundStreams } from './auth/key-bound-streams'
import { UiSignInCodes } from './auth/ui-sign-in'
import type { KeyStore } from './auth/key-store'
import type { OrganizationSettings } from './config/config-file'
import type { ModelCatalog } from './config/model-catalog'
import { GatewayError } from './errors'
import { GenerationRegistry } from './generation/generation-registry'
import { answerErrorsAs } from './http/error-format'
import { errorHandler, sendError } from './http/error-handler'
import { frontDoor } from './http/front-door'
import { v1Aliases } from './http/v1-aliases'
import { gatherResponseHeaders } from './http/response-head'
import { ParsedParts } from './http/parsed-parts'
import { DEFAULT_BODY_LIMIT_BYTES } from './http/read-json-body'
import { chatCompletionsEndpoint } from './endpoints/chat-completions/chat-completions-endpoint'
import { messagesEndpoint } from './endpoints/messages/messages-endpoint'
import { countTokens } from './routes/count-tokens'
import { ANTHROPIC_ERRORS } from './endpoints/messages/messages-wire'
import { responsesEndpoint } from './endpoints/responses/responses-endpoint'
import { completionsEndpoint } from './endpoints/completions/completions-endpoint'
import type { Endpoint } from './endpoints/endpoint'
import { generationRoute, type GenerationHandler } from './routes/generation-route'
import { embeddings } from './routes/embeddings'
import { health, status } from './routes/health'
import { getModel, listModels } from './routes/models'
import { stopGeneration } from './routes/stop-generation'
import { telemetryStream } from './routes/telemetry'
import { keysRouter } from './routes/keys'
import { uiSignIn } from './routes/ui-sign-in'
import { UI_SIGN_IN_PATH } from '../shared/api/ui-sign-in'
import { InFlightDedupe } from './pipeline/in-flight-dedupe'
import { TelemetryBus } from './telemetry/telemetry-bus'
import { TRAFFIC_BASE } from '../shared/api/traffic'
import { DEFAULT_MEMORY_LIMITS } from './capture/capture-limits'
import { TrafficCapture } from './capture/traffic-capture'
import { trafficRouter } from './routes/traffic'
import { sessionPrefixesRouter } from './routes/session-prefixes'
import type { CompletionObserver } from './pipeline/completion-context'
import { DEFAULT_DIALECT, type Dialect } from '../shared/api/dialect'
import type { ClusterPeer } from './cluster/cluster'

export interface GatewayConfig {
  keys: KeyStore
  /** The catalog, or a function giving the current one (it may change when config.json does). */
  catalog: ModelCatalog | (() => ModelCatalog)
  /** `: ping` interval while waiting on a model: 10 s, so idle proxies keep the stream open; shorter only in tests. */
  pingIntervalMs?: number
  /** Told of every accepted generation, however it ended, a refused start included (the telemetry stream builds on it). */
  onCompletion?: CompletionObserver
  /** The dialect for keys that don't choose their own (or a function giving the current one); `mortar` when left out. */
  dialect?: Dialect | (() => Dialect)
  /** Per-organization settings, such as their optimizer default (from config.json). */
  organizations?: () => Readonly<Record<string, OrganizationSettings>>
  /** Host names to answer to besides localhost, 127.0.0.1 and [::1]. */
  allowedHosts?: readonly string[]
  /** Web origins whose pages may call the gateway (CORS), besides the gateway's own. */
  allowedOrigins?: readonly string[]
  bodyLimitBytes?: number
  /** The built renderer, served at `/` so the UI also runs in a browser. */
  rendererDir?: string
  /** Traffic capture (docs/traffic.md); none: capture off. */
  capture?: TrafficCapture
  /** The cluster this instance belongs to (`mortar serve --redis`, docs/cluster.md); none: alone. */
  cluster?: ClusterPeer
}

export interface GatewayStats {
  liveGenerations: number
  dedupeGroups: number
  telemetrySubscribers: number
  /** Captured exchanges whose response has not ended yet. */
  capturing: number
}

export interface Gateway {
  /** The request listener: mount it on any node:http server. */
  handler: RequestListener
  /** What the gateway holds right now: all zero when idle (leak checks, status). */
  stats(): GatewayStats
  generations: GenerationRegistry
  dedupe: InFlightDedupe
  telemetry: TelemetryBus
  capture: TrafficCapture
  /** The one-time codes of the UI links `mortar serve` prints. */
  signInCodes: UiSignInCodes
  /** Stop every live generation (streams end with `[DONE]`) and wait until all have ended. */
  drain(): Promise<void>
}

export const PING_INTERVAL_MS = 10_000

/**
 * The composition root. This file reads as the gateway's table of contents: the checks every
 * request passes, then each route and the stages it runs.
 */
export function createGateway(config: GatewayConfig): Gateway {
  const generations = new GenerationRegistry()
  const dedupe = new InFlightDedupe()
  const telemetry = new TelemetryBus()
  const keyBound = new KeyBoundStreams(config.keys)
  const signInCodes = new UiSignInCodes(config.keys)
  const { catalog } = config
  const capture = config.capture ?? new TrafficCapture({ mode: 'off', limits: DEFAULT_MEMORY_LIMITS, store: undefined })
  const currentCatalog = typeof catalog === 'function' ? catalog : () => catalog
  const { dialect = DEFAULT_DIALECT } = config
  const currentDialect = typeof dialect === 'function' ? dialect : () => dialect

  // The front door (http/front-door.ts), run for every request by both ways in below: capture,
  // request ID, Host allow-list, CORS, and the API key under /v1. Each check throws a GatewayError.
  const admit = frontDoor({
    keys: config.keys,
    capture,
    allowedHosts: config.allowedHosts ?? [],
    allowedOrigins: config.allowedOrigins ?? [],
  })
  const generation = {
    catalog: currentCatalog,
    organizations: config.organizations ?? (() => ({})),
    dialect: currentDialect,
    generations,
    dedupe: config.cluster?.dedupe(dedupe) ?? dedupe,
    telemetry,
    bodyLimitBytes: config.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    pingIntervalMs: config.pingIntervalMs ?? PING_INTERVAL_MS,
    onCompletion: config.onCompletion,
    parsedParts: new ParsedParts(),
  }
  // The generation endpoints: each is an accept function, a wire format and a path
  // (endpoints/endpoint.ts); the route runs the same stages for all of them.
  const generators = new Map<string, { endpoint: Endpoint; generate: GenerationHandler }>(
    GENERATION_ENDPOINTS.map((endpoint) => ['/v1' + endpoint.path, { endpoint, generate: generationRoute(endpoint, generation) }]),
  )

  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use((req, res, next) => {
    // Anthropic's count_tokens is refused in Anthropic's envelope, the front door's refusals too.
    if (pathOf(req.url) === COUNT_TOKENS_PATH) answerErrorsAs(req, ANTHROPIC_ERRORS)
    const admission = admit(req, res)
    if (admission.answered) return
    if (admission.principal !== undefined) rememberPrincipal(req, admission.principal)
    next()
  })

  app.get('/health', health(currentCatalog, config.cluster))
  app.post(UI_SIGN_IN_PATH, uiSignIn(signInCodes))

  const v1 = express.Router()
  v1.get('/models', listModels(currentCatalog))
  v1.get('/models/*id', getModel(currentCatalog))
  v1.get('/status', status(currentCatalog))
  for (const [path, { generate }] of generators) v1.post(path.slice('/v1'.length), (req, res) => generate(req, res, principalOf(req)))
  v1.post(COUNT_TOKENS_PATH.slice('/v1'.length), countTokens(generation))
  v1.post('/embeddings', embeddings({ catalog: currentCatalog, bodyLimitBytes: config.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES, telemetry }))
  v1.get('/telemetry', telemetryStream(telemetry, keyBound))
  v1.use('/keys', keysRouter(config.keys))
  v1.use(TRAFFIC_BASE.slice('/v1'.length), trafficRouter(capture, keyBound))
  v1.use(TRAFFIC_BASE.slice('/v1'.length), sessionPrefixesRouter(capture, currentCatalog))
  v1.post('/generations/:id/stop', stopGeneration(generations, config.cluster))
  for (const path of generators.keys()) v1.all(path.slice('/v1'.length), methodNotAllowed('POST'))
  v1.all(COUNT_TOKENS_PATH.slice('/v1'.length), methodNotAllowed('POST'))
  v1.all('/embeddings', methodNotAllowed('POST'))
  v1.all('/generations/:id/stop', methodNotAllowed('POST'))
  v1.all('/telemetry', methodNotAllowed('GET'))
  v1.use(unknownRoute)
  app.use('/v1', v1)

  if (config.rendererDir !== undefined && existsSync(config.rendererDir)) {
    app.use(express.static(config.rendererDir, { index: 'index.html', fallthrough: true }))
  }
  app.use(unknownRoute)
  app.use(errorHandler)

  // The hot path: POST to a generation endpoint, spelled as clients spell it, skips Express's
  // router (a measurable share of each request's time and garbage, docs/benchmark.md) and runs
  // the same checks and handler directly. Every other request, and any other spelling of these,
  // goes through Express, which answers them the same way.
  const aliasV1 = v1Aliases(V1_ROUTE_ROOTS)
  const handler: RequestListener = (req, res) => {
    // Bare-host clients' paths get their /v1 first, so both ways in see one spelling.
    aliasV1(req)
    const route = req.method === 'POST' ? generators.get(pathOf(req.url)) : undefined
    if (route === undefined) return void app(req, res)
    // The front door's refusals, too, are in the endpoint's own envelope.
    answerErrorsAs(req, route.endpoint.wire)
    // Every header of the answer leaves in one `writeHead` call, errors' included.
    gatherResponseHeaders(res)
    try {
      const admission = admit(req, res)
      if (admission.answered) return
      // Under /v1, so the door has authenticated the caller.
      if (admission.principal === undefined) throw new Error(`the front door admitted ${req.url} without a caller`)
      route.generate(req, res, admission.principal).catch((error: unknown) => sendError(error, req, res))
    } catch (error) {
      sendError(error, req, res)
    }
  }

  return {
    handler,
    generations,
    dedupe,
    telemetry,
    capture,
    signInCodes,
    stats: () => ({
      liveGenerations: generations.size,
      dedupeGroups: dedupe.size,
      telemetrySubscribers: telemetry.size,
      capturing: capture.runningCount,
    }),
    async drain() {
      generations.stopAll('shutdown')
      await generations.whenIdle()
      telemetry.closeAll()
      keyBound.close()
      capture.live.closeAll()
    },
  }
}

/** Anthropic's token count: not a generation, but answered as the Messages endpoint answers. */
const COUNT_TOKENS_PATH = '/v1/messages/count_tokens'

/** The generation endpoints, each one route line. */
const GENERATION_ENDPOINTS: readonly Endpoint[] = [chatCompletionsEndpoint, completionsEndpoint, messagesEndpoint, responsesEndpoint]

/**
 * The first segments of the routes under /v1, which bare-host clients send without the prefix
 * (http/v1-aliases.ts). Every route the v1 router mounts is here.
 */
const V1_ROUTE_ROOTS: readonly string[] = [
  'models',
  'status',
  'telemetry',
  'keys',
  'embeddings',
  TRAFFIC_BASE.slice('/v1/'.length),
  'generations',
  ...new Set(GENERATION_ENDPOINTS.map((endpoint) => endpoint.path.split('/')[1] ?? '')),
]

/** A request target's path, without its query: what the hot path looks up. */
function pathOf(url: string | undefined): string {
  if (url === undefined) return ''
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

const methodNotAllowed =
  (allowed: string): express.RequestHandler =>
  (req, res, next) => {
    res.setHeader('Allow', allowed)
    next(new GatewayError('method_not_allowed', `${req.method} is not allowed here; use ${allowed}.`))
  }

const unknownRoute: express.RequestHandler = (req, _res, next) =>
  next(new GatewayError('unknown_route', `Unknown request URL: ${req.method} ${req.originalUrl.slice(0, 200)}.`))
