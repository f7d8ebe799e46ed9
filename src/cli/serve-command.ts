import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { OPTIMIZER_MODES, optimizerModeSchema } from '../shared/api/optimizer'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { UI_SIGN_IN_FRAGMENT } from '../shared/api/ui-sign-in'
import { SIGN_IN_CODE_LIFETIME_MS } from '../gateway/auth/ui-sign-in'
import { DIALECTS } from '../shared/api/dialect'
import type { ModelObject } from '../shared/api/chat-response'
import { LOOPBACK_HOSTS } from '../gateway/http/host-allow-list'
import type { ServeOverrides } from '../gateway/config/build-catalog'
import type { CompletionObserver } from '../gateway/pipeline/completion-context'
import { CAPTURE_MODES, type CaptureMode, type CaptureStatus } from '../shared/api/traffic'
import { DEFAULT_HOST, DEFAULT_PORT, startGatewayServer, type GatewayServer, type GatewayServerOptions } from '../gateway/server'
import { MORTAR_VERSION } from '../gateway/version'
import { ClusterOptionsError, redactRedisUrl } from '../gateway/cluster/cluster-options'
import { UsageError, type CliIo } from './cli-io'
import { defaultHome } from './home'
import { FileKeyRecords } from '../gateway/auth/file-key-records'
import { KeysUnavailableError, type KeyStore } from '../gateway/auth/key-store'
import { parseDialect } from './parse-dialect'

export const SERVE_USAGE = `Usage:
  mortar serve [--host 127.0.0.1] [--port ${DEFAULT_PORT}] [--home DIR] [--scripted-tps N] [--allow-host NAME]… [--allow-origin ORIGIN]…
               [--upstream URL]… [--upstream-timeout SECONDS] [--upstream-idle-timeout SECONDS] [--upstream-model NAME]
               [--context-window N] [--default-max-tokens N|none] [--optimizer shadow|on|off] [--dialect ${DIALECTS.join('|')}]
               [--capture off|memory|disk] [--capture-max-mb N] [--capture-max-exchanges N] [--capture-retention-days N]
               [--redis redis://HOST:PORT[/DB]] [--instance NAME]
  --port 0 picks a free port; the URL is printed.
  --scripted-tps paces the scripted model (tokens per second, 0 = as fast as possible).
  --allow-host adds a name the gateway answers to besides localhost, 127.0.0.1 and [::1].
  --allow-origin lets web pages from that origin (e.g. http://localhost:5173) call the gateway.
  --upstream serves ${DEFAULT_MODEL_ID} from a model server's OpenAI base URL (e.g.
    http://127.0.0.1:8000/v1); repeat it for replicas. Its API key, if any: $MORTAR_UPSTREAM_API_KEY.
  --upstream-timeout: seconds to wait for the server's response headers (default 120).
  --upstream-idle-timeout: seconds the server may send nothing mid-reply before it fails (default 120).
  --upstream-model: the model name the server knows, if not ${DEFAULT_MODEL_ID}.
  --context-window: that model's context window in tokens, if config.json sets none (default: ask
    the server; when it does not say, Mortar checks nothing and the server decides).
  --default-max-tokens: the max_tokens sent when a client sends none, for models whose config.json
    entry sets none (default 1024; none: send no max_tokens).
  --optimizer: the prompt optimizer's mode for deployments that don't set one (default shadow:
    measure only; on: apply lossless passes; off: no header turns it on).
  --capture: what is kept of each request for the Traffic view and /v1/traffic (default memory;
    disk: SQLite in the home directory, kept across restarts; off: live events only).
  --capture-max-mb, --capture-max-exchanges: the store's limits (memory: 64 MiB, 5000; disk: 512 MiB,
    100000); --capture-retention-days: how long disk keeps exchanges (default 7). docs/traffic.md.
  --dialect: the API dialect for keys that don't choose one, unless config.json names one (default
    mortar, Mortar's own: \`stream\` defaults to true; openai: OpenAI's defaults, for clients such as
    the AI SDK or LlamaIndex; docs/api-decisions.md#dialects).
  --redis: join the gateways that share this Redis: stops, dedupe and keys work across them
    (docs/cluster.md). --instance names this one (default: host name and port).
  Models and deployments beyond that: <home>/config.json (docs/configuration.md).`

export interface ServeEnvironment {
  rendererDir?: string
  /** For embedders and tests: told of every accepted generation, however it ended. */
  onCompletion?: CompletionObserver
}

/** Parse `mortar serve` arguments, start the gateway, and print where it is. */
export async function startServe(argv: string[], io: CliIo, env: ServeEnvironment = {}): Promise<GatewayServer> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      host: { type: 'string', default: DEFAULT_HOST },
      port: { type: 'string', default: String(DEFAULT_PORT) },
      home: { type: 'string' },
      'scripted-tps': { type: 'string', default: '0' },
      'allow-host': { type: 'string', multiple: true, default: [] },
      'allow-origin': { type: 'string', multiple: true, default: [] },
      upstream: { type: 'string', multiple: true, default: [] },
      'upstream-timeout': { type: 'string' },
      'upstream-idle-timeout': { type: 'string' },
      'upstream-model': { type: 'string' },
      'context-window': { type: 'string' },
      'default-max-tokens': { type: 'string' },
      optimizer: { type: 'string', default: 'shadow' },
      capture: { type: 'string' },
      'capture-max-mb': { type: 'string' },
      'capture-max-exchanges': { type: 'string' },
      'capture-retention-days': { type: 'string' },
      dialect: { type: 'string' },
      redis: { type: 'string' },
      instance: { type: 'string' },
    },
  })
  if (positionals.length > 0) throw new UsageError(`takes no arguments; got ${positionals.join(' ')}.`)
  const port = wholeNumber(values.port, '--port', 65_535)
  const tokensPerSecond = wholeNumber(values['scripted-tps'], '--scripted-tps', 1_000_000)
  const home = values.home ?? defaultHome()
  const optimizer = optimizerModeSchema.safeParse(values.optimizer)
  if (!optimizer.success) {
    throw new UsageError(`--optimizer takes ${OPTIMIZER_MODES.join(', ').replace(/, (?=[^,]*$)/, ' or ')}; got ${JSON.stringify(values.optimizer)}.`)
  }
  const optimizerMode = optimizer.data
  const capture = captureOptions(values)
  const dialect = values.dialect === undefined ? undefined : parseDialect(values.dialect)
  const upstream = upstreamOverride(
    values.upstream,
    {
      timeout: values['upstream-timeout'],
      idleTimeout: values['upstream-idle-timeout'],
      model: values['upstream-model'],
      contextWindow: values['context-window'],
    },
    process.env,
  )
  const defaultMaxTokens = defaultMaxTokensFlag(values['default-max-tokens'])

  const server = await startGatewayServer({
    host: values.host,
    port,
    home,
    scriptedTokensPerSecond: tokensPerSecond,
    optimizerMode,
    ...capture,
    ...(dialect !== undefined ? { dialect } : {}),
    ...(defaultMaxTokens !== undefined ? { defaultMaxTokens } : {}),
    allowedHosts: values['allow-host'],
    allowedOrigins: values['allow-origin'],
    ...(upstream !== undefined ? { upstream } : {}),
    ...(testPingInterval(process.env) ?? {}),
    ...(env.rendererDir !== undefined ? { rendererDir: env.rendererDir } : {}),
    ...(env.onCompletion !== undefined ? { onCompletion: env.onCompletion } : {}),
    cluster: {
      ...(values.redis !== undefined ? { redisUrl: values.redis } : {}),
      ...(values.instance !== undefined ? { instance: values.instance } : {}),
    },
    log: (line) => io.err(line),
  }).catch((error: NodeJS.ErrnoException) => {
    if (error instanceof ClusterOptionsError) throw new UsageError(error.message)
    if (error.code === 'EADDRINUSE') {
      throw new Error(`Port ${port} on ${values.host} is already in use. Pick another with --port, or --port 0 for any free one.`)
    }
    throw error
  })

  try {
    // Whatever can fail happens before the first line is printed, and a failure closes the
    // listener: a gateway that could not start must not keep the port or print a usable URL.
    // A cluster's keys are in Redis: keys.json's are not used there, and their presence says the
    // home is not new (no first key is made behind the user's back; `mortar keys import` brings them).
    const unusedFileKeys = server.cluster === undefined ? 0 : keysInFile(home)
    const firstKey = unusedFileKeys > 0 ? undefined : await server.keys.createIfNone({ name: 'default', role: 'owner' })
    io.out(`Mortar ${MORTAR_VERSION}: gateway listening on ${server.url}`)
    io.out(`  OpenAI base URL: ${server.url}/v1`)
    // A one-time code, not a key: URLs stay in browser history (docs/security.md).
    io.out(`  UI:              ${server.url}/#${UI_SIGN_IN_FRAGMENT}=${server.gateway.signInCodes.issue()}  (signs in once, within ${SIGN_IN_CODE_LIFETIME_MS / 60_000} minutes)`)
    io.out(`  Home:            ${home}`)
    io.out(`  Traffic capture: ${describeCapture(server.gateway.capture.status())}`)
    if (server.cluster !== undefined) {
      const { instance, redis } = server.cluster.status()
      io.out(`  Cluster:         instance ${instance}, Redis ${redactRedisUrl(server.cluster.redisUrl)} (${redis})`)
    }
    const gatewayDialect = server.catalog.dialect()
    io.out(`  Dialect:         ${gatewayDialect.dialect} (${DIALECT_SOURCES[gatewayDialect.source]}; a key's own dialect wins)`)
    for (const model of server.catalog.current().list().data) {
      io.out(`  Model:           ${model.id} (${describeDeployment(model.deployment, upstream, tokensPerSecond)})`)
      if (model.deployment === null) continue
      io.out(`                   ${describeContextWindow(model)}`)
      io.out(`                   ${model.default_max_tokens === null ? 'max_tokens: none sent when the client sends none' : `max_tokens: ${model.default_max_tokens} when the client sends none`}`)
    }
    if (!(LOOPBACK_HOSTS as readonly string[]).includes(values.host) && values.host !== '::1') {
      io.err(`Warning: listening on ${values.host}, not only on this machine. Anyone who can reach it and holds a key can use it.`)
    }
    if (unusedFileKeys > 0 && knownEmpty(server.keys)) {
      io.out('')
      io.out(`The cluster's keys live in Redis, which has none; this home's keys.json has ${unusedFileKeys}, unused while clustered.`)
      io.out(`  Bring them in: mortar keys import --home ${home} --redis ${redactRedisUrl(server.cluster?.redisUrl ?? '')}`)
    }
    if (firstKey !== undefined) {
      const { key, record } = firstKey
      io.out('')
      io.out(`No API keys existed, so Mortar created one (${record.id}, owner, expires ${record.expiresAt}):`)
      io.out(`  ${key}`)
      io.out('It is shown only this once. More keys: mortar keys create --name NAME')
    }
  } catch (error) {
    await server.close()
    throw error
  }
  return server
}

function describeCapture(status: CaptureStatus): string {
  if (status.mode === 'off') return 'off (live events only)'
  const { limits } = status
  const where = status.mode === 'disk' ? `disk, kept ${limits.retention_days ?? '∞'} days` : 'memory'
  return `${where}, up to ${Math.round(limits.max_bytes / 1024 / 1024)} MiB or ${limits.max_exchanges} exchanges`
}

function captureOptions(values: {
  capture?: string | undefined
  'capture-max-mb'?: string | undefined
  'capture-max-exchanges'?: string | undefined
  'capture-retention-days'?: string | undefined
}): Pick<GatewayServerOptions, 'capture' | 'captureLimits'> {
  const mode = values.capture
  if (mode !== undefined && !(CAPTURE_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`--capture takes off, memory or disk; got ${JSON.stringify(mode)}.`)
  }
  const positive = (value: string | undefined, flag: string, max: number) => {
    if (value === undefined) return undefined
    const n = wholeNumber(value, flag, max)
    if (n === 0) throw new UsageError(`${flag} takes a whole number from 1 to ${max}; got 0.`)
    return n
  }
  const megabytes = positive(values['capture-max-mb'], '--capture-max-mb', 1_000_000)
  const exchanges = positive(values['capture-max-exchanges'], '--capture-max-exchanges', 10_000_000)
  const days = positive(values['capture-retention-days'], '--capture-retention-days', 36_500)
  return {
    ...(mode !== undefined ? { capture: mode as CaptureMode } : {}),
    captureLimits: {
      ...(megabytes !== undefined ? { max_bytes: megabytes * 1024 * 1024 } : {}),
      ...(exchanges !== undefined ? { max_exchanges: exchanges } : {}),
      ...(days !== undefined ? { retention_days: days } : {}),
    },
  }
}
const DIALECT_SOURCES = { 'config.json': 'from config.json', '--dialect': 'from --dialect', default: 'the default' } as const

function wholeNumber(value: string, flag: string, max: number, { min = 0, orElse = '' }: { min?: number; orElse?: string } = {}): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}${orElse}; got ${JSON.stringify(value)}.`)
  }
  return n
}

function upstreamOverride(
  urls: string[],
  flags: { timeout: string | undefined; idleTimeout: string | undefined; model: string | undefined; contextWindow: string | undefined },
  env: NodeJS.ProcessEnv,
): ServeOverrides['upstream'] {
  if (urls.length === 0) {
    if (Object.values(flags).some((value) => value !== undefined)) {
      throw new UsageError('--upstream-timeout, --upstream-model, --context-window and --upstream-idle-timeout go with --upstream URL.')
    }
    return undefined
  }
  for (const url of urls) {
    if (!/^https?:\/\/[^/\s]+/.test(url)) throw new UsageError(`--upstream takes an http:// or https:// base URL; got ${JSON.stringify(url)}.`)
  }
  const timeoutSeconds = seconds(flags.timeout, '--upstream-timeout')
  const idleTimeoutSeconds = seconds(flags.idleTimeout, '--upstream-idle-timeout')
  const apiKey = env.MORTAR_UPSTREAM_API_KEY
  return {
    modelId: DEFAULT_MODEL_ID,
    urls,
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
    ...(idleTimeoutSeconds !== undefined ? { idleTimeoutSeconds } : {}),
    ...(flags.model !== undefined ? { upstreamModel: flags.model } : {}),
    ...(apiKey !== undefined && apiKey !== '' ? { apiKey } : {}),
    ...(flags.contextWindow !== undefined ? { contextWindow: wholeNumber(flags.contextWindow, '--context-window', 10_000_000, { min: 256 }) } : {}),
  }
}

/** A timeout flag's seconds: above 0 (fractions allowed), at most a day. */
function seconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!(n > 0) || n > 86_400) throw new UsageError(`${flag} takes seconds above 0; got ${JSON.stringify(value)}.`)
  return n
}

/** `--default-max-tokens N|none`: undefined when not given, null for none. */
function defaultMaxTokensFlag(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined
  if (value === 'none') return null
  return wholeNumber(value, '--default-max-tokens', 10_000_000, { min: 1, orElse: ', or none' })
}

/** The start-up line about a model's window: how big, and who said so. */
function describeContextWindow(model: ModelObject): string {
  if (model.context_window === null) {
    return 'context window: unknown (the model server did not say); Mortar checks no prompt length, the server decides'
  }
  return `context window: ${model.context_window} tokens (from ${model.context_window_source})`
}

/** Test-only: MORTAR_TEST_PING_INTERVAL_MS shortens the 10 s keep-alive so tests need not wait. */
function testPingInterval(env: NodeJS.ProcessEnv): { pingIntervalMs: number } | undefined {
  const value = Number(env.MORTAR_TEST_PING_INTERVAL_MS)
  return Number.isInteger(value) && value > 0 ? { pingIntervalMs: value } : undefined
}

function describeDeployment(deployment: string | null, upstream: ServeOverrides['upstream'], tokensPerSecond: number): string {
  if (deployment === null) return 'not deployed'
  if (deployment === 'upstream' && upstream !== undefined) return `forwarded to ${upstream.urls.join(', ')}`
  if (deployment === 'scripted') return `scripted model, ${tokensPerSecond === 0 ? 'unpaced' : `${tokensPerSecond} tokens/s`}`
  return `deployment ${deployment}`
}

/** How many keys the home's keys.json holds (0 when it has none, or cannot be read). */
function keysInFile(home: string): number {
  try {
    const file = new FileKeyRecords(join(home, 'keys.json'))
    const count = file.read({ strict: true }).records.length
    file.close()
    return count
  } catch {
    return 0
  }
}

/** Whether the store is known to hold no key (not when its records cannot be read now). */
function knownEmpty(keys: KeyStore): boolean {
  try {
    return keys.isEmpty()
  } catch (error) {
    if (error instanceof KeysUnavailableError) return false
    throw error
  }
}
