import type { ModelList, ModelObject } from '../../shared/api/chat-response'
import type { ModelBackend } from '../backends/model-backend'
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
  contextWindow: number
  tokenizer: Tokenizer
  backend: ModelBackend | null
  /** The deployment's prompt-optimizer mode. */
  optimizerMode: OptimizerMode
  price: ModelPrice | undefined
}

export interface DeployedModel extends CatalogModel {
  backend: ModelBackend
}

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
    if (model.backend === null) throw modelNotAvailable(id)
    return model as DeployedModel
  }

  /** Every deployed model, in catalog order. */
  deployed(): DeployedModel[] {
    return [...this.byId.values()].filter((model): model is DeployedModel => model.backend !== null)
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
    context_window: model.contextWindow,
    deployment: model.backend?.deployment ?? null,
  }
}
