import type { RequestHandler } from 'express'
import type { ModelCatalog } from '../config/model-catalog'
import { modelNotFound } from '../errors'
import { sendJson } from '../http/send-json'

/** GET /v1/models: the catalog, never empty (IDE tools read `data[].id` to fill their pickers). */
export const listModels =
  (catalog: () => ModelCatalog): RequestHandler =>
  (_req, res) =>
    sendJson(res, 200, catalog().list())

/** GET /v1/models/{id}; model IDs contain a slash (`Qwen/Qwen2.5-7B-Instruct`). */
export const getModel =
  (catalog: () => ModelCatalog): RequestHandler =>
  (req, res) => {
    const segments = (req.params as { id?: string[] }).id ?? []
    const id = segments.join('/')
    const model = catalog().get(id)
    if (model === undefined) throw modelNotFound(id)
    sendJson(res, 200, model)
  }
