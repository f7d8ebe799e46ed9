import { join } from 'node:path'
import { DEFAULT_DIALECT, type Dialect } from '../../shared/api/dialect'
import { buildCatalog, type ServeOverrides } from './build-catalog'
import { parseConfigFile, type MortarConfig } from './config-file'
import type { ModelCatalog } from './model-catalog'
import { WatchedFile } from '../files/watched-file'
import { errorText } from '../../shared/narrow'

/**
 * The live catalog of a Mortar home: built from `config.json` (or the default when there is
 * none) plus the serve flags, and rebuilt when the file changes — config edits apply without a
 * restart. A bad edit keeps the catalog that was running and says why on stderr; at start-up a bad
 * file is an error that names it. Requests already running keep the backend they started with.
 */
export class CatalogSource {
  private readonly config: WatchedFile<MortarConfig>
  private builtFrom: MortarConfig | undefined
  private catalog: ModelCatalog | undefined
  private discovery: Promise<void> = Promise.resolve()

  constructor(
    home: string,
    private readonly overrides: ServeOverrides,
  ) {
    const path = join(home, 'config.json')
    this.config = new WatchedFile(path, (text) => parseConfigFile(path, text))
    this.current({ strict: true })
  }

  /**
   * The organizations' settings (the optimizer default of each), from the config the catalog was
   * last built from: a request asks for the catalog first, which already checked the file, so a
   * second check per request would be waste.
   */
  organizations(): MortarConfig['organizations'] {
    return (this.builtFrom ?? this.config.read({ strict: false })).organizations
  }

  /** The cluster settings of config.json (read once, at start-up: joining or leaving needs a restart). */
  cluster(): MortarConfig['cluster'] {
    return this.config.read({ strict: true }).cluster
  }

  /** The capture settings of config.json (read once, at start-up: changing the store needs a restart). */
  capture(): MortarConfig['capture'] {
    return this.config.read({ strict: true }).capture
  }

  /**
   * The gateway's dialect, and what set it: config.json's `dialect`, else `mortar serve --dialect`,
   * else `mortar`. Read per request (the watched file is re-parsed only when it changed), so an
   * edit applies from the next request on.
   */
  dialect(): { dialect: Dialect; source: 'config.json' | '--dialect' | 'default' } {
    const fromFile = this.config.read({ strict: false }).dialect
    if (fromFile !== undefined) return { dialect: fromFile, source: 'config.json' }
    if (this.overrides.dialect !== undefined) return { dialect: this.overrides.dialect, source: '--dialect' }
    return { dialect: DEFAULT_DIALECT, source: 'default' }
  }

  /**
   * Settles when the model servers of the current catalog have been asked for their context
   * windows (each question is bounded, so this is never long). Start-up waits for it, so the
   * first request already has the window; after a config change, requests do not wait — until the
   * answer is in, the new catalog's windows are unknown and the servers decide.
   */
  discovered(): Promise<void> {
    return this.discovery
  }

  /** Stop watching config.json (the gateway is closing). */
  close(): void {
    this.config.close()
  }

  current({ strict }: { strict: boolean } = { strict: false }): ModelCatalog {
    const config = this.config.read({ strict })
    if (config !== this.builtFrom || this.catalog === undefined) {
      try {
        this.catalog = buildCatalog(config, this.overrides)
        this.builtFrom = config
        this.discovery = discoverContextWindows(this.catalog)
      } catch (error) {
        if (strict || this.catalog === undefined) throw error
        this.builtFrom = config // don't retry the same bad config on every request
        process.stderr.write(`mortar: ${errorText(error)} Keeping the catalog loaded before.\n`)
      }
    }
    return this.catalog
  }
}

/** Ask the model servers of every model whose window is not configured; record what they say. */
async function discoverContextWindows(catalog: ModelCatalog): Promise<void> {
  const asking = [...catalog.models()].map(async (model) => {
    const found = await model.discoverContextWindow?.()
    if (found === undefined) return
    model.contextWindow = found.tokens
    model.contextWindowSource = found.source
  })
  await Promise.all(asking)
}
