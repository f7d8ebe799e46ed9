import { ScriptedBackend } from '../backends/scripted/scripted-backend'
import { ReplicaPool, type ReplicaSettings } from '../backends/upstream/replica-pool'
import { UpstreamBackend } from '../backends/upstream/upstream-backend'
import type { ModelBackend } from '../backends/model-backend'
import { loadTokenizer } from '../tokens/tokenizer-registry'
import type { Tokenizer } from '../tokens/tokenizer'
import type { Dialect } from '../../shared/api/dialect'
import { ConfigError, DEFAULT_IDLE_TIMEOUT_SECONDS, type ModelConfig, type MortarConfig, type UpstreamDeploymentConfig } from './config-file'
import { ModelCatalog, type OptimizerMode } from './model-catalog'

/** What `mortar serve` flags add on top of config.json. */
export interface ServeOverrides {
  /** Pace of scripted deployments that don't set their own. */
  scriptedTokensPerSecond: number
  /** `--optimizer`: the mode of deployments that don't set their own (default shadow). */
  optimizerMode?: OptimizerMode
  /** `--dialect`: the gateway's dialect when config.json doesn't name one (default mortar). */
  dialect?: Dialect
  /** `--upstream URL…`: serve the default model from these replicas instead. */
  upstream?: {
    modelId: string
    urls: readonly string[]
    timeoutSeconds?: number
    /** `--upstream-idle-timeout`: seconds of silence between chunks before the reply fails. */
    idleTimeoutSeconds?: number
    upstreamModel?: string
    apiKey?: string
  }
}

/** Turn a validated config (plus CLI overrides) into the catalog of models and their backends. */
export function buildCatalog(config: MortarConfig, overrides: ServeOverrides, env: NodeJS.ProcessEnv = process.env): ModelCatalog {
  const models = withUpstreamOverride(config.models, overrides.upstream)
  return new ModelCatalog(
    models.map((model) => {
      const tokenizer = loadTokenizer(model.tokenizer)
      return {
        id: model.id,
        created: model.created,
        ownedBy: model.ownedBy,
        contextWindow: model.contextWindow,
        tokenizer,
        backend: backendFor(model, tokenizer, overrides, env),
        optimizerMode: model.deployment?.optimizer ?? overrides.optimizerMode ?? 'shadow',
        price: model.price,
      }
    }),
  )
}

function backendFor(model: ModelConfig, tokenizer: Tokenizer, overrides: ServeOverrides, env: NodeJS.ProcessEnv): ModelBackend | null {
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
    pool: new ReplicaPool(replicaSettings(deployment, env), deployment.downSeconds * 1000),
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
    { id: upstream.modelId, contextWindow: 4096, tokenizer: 'qwen2.5', ownedBy: 'mortar', created: 1726704000, deployment },
  ]
}
