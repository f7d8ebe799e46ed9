import type { ModelList, ModelObject } from '../../shared/api/chat-response'
import type { ModelBackend } from '../backends/model-backend'
import type { DiscoveredWindow } from '../backends/upstream/context-window-probe'
import { modelNotAvailable, modelNotFound } from '../errors'
import type { Tokenizer } from '../tokens/tokenizer'

/** USD per million tokens, for the telemetry stream's cost. */
export interface ModelPrice {
  inputPerMillion: number
  outputPerMillion: number
  cachedInputPerMillion?: number | undefined
}

import type { OptimizerMode } from '../../shared/api/optimizer'

export type { OptimizerMode }

/** A model the gateway knows, and the deployment serving it (null: catalogued, not deployed). */
export interface CatalogModel {
  id: string
  created: number
  ownedBy: string
  /**
   * Tokens the prompt, the reply and the template overhead must fit in; undefined when nobody
   * knows it (a model server that did not say), and then the server decides what fits. A model
   * server's answer arrives after the catalog is built (`discoverContextWindow`), hence mutable.
   */
  contextWindow: number | undefined
  /** Where `contextWindow` came from, as /v1/models and the start-up output say it. */
  contextWindowSource: string
  /** Asks the model servers for the window; set only when neither config.json nor a flag gave one. */
  discoverContextWindow: (() => Promise<DiscoveredWindow | undefined>) | undefined
  /** The max_tokens sent when the client sends none; undefined sends none. */
  defaultMaxTokens: number | undefined
  tokenizer: Tokenizer
  backend: ModelBackend | null
  /** The deployment's prompt-optimizer mode. */
  optimizerMode: OptimizerMode
  price: ModelPrice | undefined
}

export interface DeployedModel extends CatalogModel {
  backend: ModelBackend
}

const isDeployed = (model: CatalogModel): model is DeployedModel => model.backend !== null

export class ModelCatalog {
  private readonly byId: Map<string, CatalogModel>

  constructor(models: readonly CatalogModel[]) {
    if (models.length === 0) throw new Error('The model catalog needs at least one model.')
    this.byId = new Map(models.map((model) => [model.id, model]))
  }

  /** The deployed model a request names: 404 when unknown, 503 when not deployed. */
  resolve(id: string): DeployedModel {
    const model = this.byId.get(id)
    if (model === undefined) throw modelNotFound(id)
    if (!isDeployed(model)) throw modelNotAvailable(id)
    return model
  }

  /** Every deployed model, in catalog order. */
  deployed(): DeployedModel[] {
    return [...this.byId.values()].filter(isDeployed)
  }

  /** Every model, deployed or not. */
  models(): IterableIterator<CatalogModel> {
    return this.byId.values()
  }

  list(): ModelList {
    return { object: 'list', data: [...this.byId.values()].map(toModelObject) }
  }

  get(id: string): ModelObject | undefined {
    const model = this.byId.get(id)
    return model === undefined ? undefined : toModelObject(model)
  }
}

function toModelObject(model: CatalogModel): ModelObject {
  return {
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: model.ownedBy,
    context_window: model.contextWindow ?? null,
    // The same number under the name vLLM uses, which Continue's vLLM provider reads.
    ...(model.contextWindow !== undefined ? { max_model_len: model.contextWindow } : {}),
    context_window_source: model.contextWindowSource,
    default_max_tokens: model.defaultMaxTokens ?? null,
    deployment: model.backend?.deployment ?? null,
  }
}
