import { ScriptedBackend } from '../backends/scripted/scripted-backend'
import { ReplicaPool, type ReplicaSettings } from '../backends/upstream/replica-pool'
import { UpstreamBackend } from '../backends/upstream/upstream-backend'
import { discoverContextWindow } from '../backends/upstream/context-window-probe'
import type { ModelBackend } from '../backends/model-backend'
import { DEFAULT_MAX_TOKENS } from '../pipeline/plan-tokens'
import { loadTokenizer } from '../tokens/tokenizer-registry'
import type { Tokenizer } from '../tokens/tokenizer'
import type { Dialect } from '../../shared/api/dialect'
import { ConfigError, DEFAULT_IDLE_TIMEOUT_SECONDS, type ModelConfig, type MortarConfig, type UpstreamDeploymentConfig } from './config-file'
import { ModelCatalog, type CatalogModel, type OptimizerMode } from './model-catalog'

/** What `mortar serve` flags add on top of config.json. */
export interface ServeOverrides {
  /** Pace of scripted deployments that don't set their own. */
  scriptedTokensPerSecond: number
  /** `--optimizer`: the mode of deployments that don't set their own (default shadow). */
  optimizerMode?: OptimizerMode
  /** `--dialect`: the gateway's dialect when config.json doesn't name one (default mortar). */
  dialect?: Dialect
  /** `--default-max-tokens N|none`: for models that don't set their own (null: send none). */
  defaultMaxTokens?: number | null
  /** `--upstream URL…`: serve the default model from these replicas instead. */
  upstream?: {
    modelId: string
    urls: readonly string[]
    timeoutSeconds?: number
    /** `--upstream-idle-timeout`: seconds of silence between chunks before the reply fails. */
    idleTimeoutSeconds?: number
    upstreamModel?: string
    apiKey?: string
    /** `--context-window N`: the window of that model, unless config.json sets one. */
    contextWindow?: number
  }
}

/** The scripted model's window when config.json gives none: 4,096, as the Mortar API documents it. */
export const SCRIPTED_CONTEXT_WINDOW = 4096
/** Each question to a model server about its window gets this long: start-up never waits longer. */
export const CONTEXT_WINDOW_PROBE_TIMEOUT_MS = 1_500

/** Turn a validated config (plus CLI overrides) into the catalog of models and their backends. */
export function buildCatalog(config: MortarConfig, overrides: ServeOverrides, env: NodeJS.ProcessEnv = process.env): ModelCatalog {
  const models = withUpstreamOverride(config.models, overrides.upstream)
  return new ModelCatalog(
    models.map((model) => {
      const tokenizer = loadTokenizer(model.tokenizer)
      const deployment = model.deployment
      const replicas = deployment?.kind === 'upstream' ? replicaSettings(deployment, env) : undefined
      // config.json, else --default-max-tokens, else DEFAULT_MAX_TOKENS (1,024); null sends none.
      const defaultMaxTokens = model.defaultMaxTokens !== undefined ? model.defaultMaxTokens : overrides.defaultMaxTokens !== undefined ? overrides.defaultMaxTokens : DEFAULT_MAX_TOKENS
      return {
        id: model.id,
        created: model.created,
        ownedBy: model.ownedBy,
        ...contextWindowOf(model, replicas, overrides.upstream),
        defaultMaxTokens: defaultMaxTokens ?? undefined,
        tokenizer,
        backend: backendFor(model, tokenizer, replicas, overrides, env),
        optimizerMode: deployment?.optimizer ?? overrides.optimizerMode ?? 'shadow',
        price: model.price,
      }
    }),
  )
}

/**
 * Where a model's window comes from, first that applies: config.json; for the `--upstream` model,
 * `--context-window`; for a model server, its own answer (asked after the catalog is built, see
 * CatalogSource); for the scripted model, 4,096. A model server that does not answer
 * leaves it unknown: Mortar then refuses nothing on a guess and the server decides.
 */
function contextWindowOf(
  model: ModelConfig,
  replicas: readonly ReplicaSettings[] | undefined,
  upstream: ServeOverrides['upstream'],
): Pick<CatalogModel, 'contextWindow' | 'contextWindowSource' | 'discoverContextWindow'> {
  if (model.contextWindow !== undefined) return { contextWindow: model.contextWindow, contextWindowSource: 'config.json', discoverContextWindow: undefined }
  if (replicas === undefined) return { contextWindow: SCRIPTED_CONTEXT_WINDOW, contextWindowSource: 'default', discoverContextWindow: undefined }
  if (upstream?.contextWindow !== undefined && model.id === upstream.modelId) {
    return { contextWindow: upstream.contextWindow, contextWindowSource: 'mortar serve --context-window', discoverContextWindow: undefined }
  }
  const targets = replicas.map((replica) => ({ id: replica.id, baseUrl: replica.baseUrl, apiKey: replica.apiKey, model: replica.model ?? model.id }))
  return {
    contextWindow: undefined,
    contextWindowSource: 'unknown',
    discoverContextWindow: () => discoverContextWindow(targets, CONTEXT_WINDOW_PROBE_TIMEOUT_MS),
  }
}

function backendFor(
  model: ModelConfig,
  tokenizer: Tokenizer,
  replicas: ReplicaSettings[] | undefined,
  overrides: ServeOverrides,
  env: NodeJS.ProcessEnv,
): ModelBackend | null {
  const deployment = model.deployment
  if (deployment === null) return null
  if (deployment.kind === 'scripted') {
    return new ScriptedBackend({
      deployment: deployment.name,
      tokenizer,
      tokensPerSecond: deployment.tokensPerSecond ?? overrides.scriptedTokensPerSecond,
    })
  }
  return new UpstreamBackend({
    deployment: deployment.name,
    modelId: model.id,
    tokenizer,
    pool: new ReplicaPool(replicas ?? replicaSettings(deployment, env), deployment.downSeconds * 1000),
  })
}

function replicaSettings(deployment: UpstreamDeploymentConfig, env: NodeJS.ProcessEnv): ReplicaSettings[] {
  const ids = new Set<string>()
  return deployment.replicas.map((replica) => {
    const baseUrl = new URL(replica.url)
    let id = replica.name ?? baseUrl.host
    // Two replicas on one host:port (different paths) still need distinct names.
    for (let n = 2; ids.has(id); n++) id = `${replica.name ?? baseUrl.host}#${n}`
    ids.add(id)
    let apiKey = replica.apiKey
    if (replica.apiKeyEnv !== undefined) {
      apiKey = env[replica.apiKeyEnv]
      if (apiKey === undefined || apiKey === '') {
        throw new ConfigError(`The replica ${id} takes its API key from $${replica.apiKeyEnv}, which is not set.`)
      }
    }
    return {
      id,
      baseUrl,
      apiKey,
      model: replica.model,
      timeoutMs: (replica.timeoutSeconds ?? deployment.timeoutSeconds) * 1000,
      idleTimeoutMs: (replica.idleTimeoutSeconds ?? deployment.idleTimeoutSeconds) * 1000,
    }
  })
}

function withUpstreamOverride(models: readonly ModelConfig[], upstream: ServeOverrides['upstream']): ModelConfig[] {
  if (upstream === undefined) return [...models]
  const deployment: UpstreamDeploymentConfig = {
    kind: 'upstream',
    name: 'upstream',
    timeoutSeconds: upstream.timeoutSeconds ?? 120,
    idleTimeoutSeconds: upstream.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS,
    downSeconds: 30,
    replicas: upstream.urls.map((url) => ({
      url,
      ...(upstream.upstreamModel !== undefined ? { model: upstream.upstreamModel } : {}),
      ...(upstream.apiKey !== undefined ? { apiKey: upstream.apiKey } : {}),
    })),
  }
  const existing = models.find((m) => m.id === upstream.modelId)
  if (existing !== undefined) return models.map((m) => (m === existing ? { ...m, deployment } : m))
  return [
    ...models,
    // No window: the flag's, or what the server says, or unknown (never the scripted model's 4,096).
    { id: upstream.modelId, tokenizer: 'qwen2.5', ownedBy: 'mortar', created: 1726704000, deployment },
  ]
}
