import { useCallback, useEffect, useRef, useState } from 'react'
import { trafficEventSchema, type CaptureStatus, type ExchangeSummary, type TrafficEvent } from '../../../shared/api/traffic'
import { applyTrafficEvent, filterParams, isSearching, mergePage, type TrafficFilterForm } from '../lib/captured-rows'
import type { StreamConnection } from '../lib/follow-event-stream'
import { errorMessage } from '../logic/error-message'
import type { GatewayClient } from '../lib/gateway-client'
import { eventParser } from '../logic/event-parser'
import { useLiveEvents } from './use-live-events'
import { useLoad } from './use-load'

/** While a search runs, live events re-run it, at most this often. */
const SEARCH_REFRESH_MS = 400
const PAGE_SIZE = 200

/** One `data:` payload of GET /v1/traffic/live. */
const parseTrafficEvent = eventParser(trafficEventSchema)

export interface CapturedTraffic {
  rows: ExchangeSummary[]
  /** The first page is being read from the store. */
  loading: boolean
  error: string | null
  connection: StreamConnection
  /** The capture mode and limits: undefined until known, null from a gateway without the traffic API. */
  capture: CaptureStatus | null | undefined
  hasOlder: boolean
  loadOlder(): void
  clear(): Promise<void>
}

/**
 * The captured exchanges of the key's organization: the newest page from the store (so a reload
 * shows what came before), then every new one from GET /v1/traffic/live as it starts and ends.
 */
export function useCapturedTraffic(client: GatewayClient, form: TrafficFilterForm): CapturedTraffic {
  const [rows, setRows] = useState<ExchangeSummary[]>([])
  /** Which query the rows answer, so `loading` is derived rather than set. */
  const [answered, setAnswered] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [cursor, setCursor] = useState<string | null>(null)
  const [refresh, setRefresh] = useState(0)
  /** Bumped by each batch of live events, so the store's size in the toolbar follows. */
  const [statusTick, setStatusTick] = useState(0)
  const formRef = useRef(form)
  useEffect(() => {
    formRef.current = form
  }, [form])
  const query = `${JSON.stringify(filterParams(form))}#${refresh}`

  // The first page, again whenever the filters change (or a search is to be re-run).
  useEffect(() => {
    const controller = new AbortController()
    client.listExchanges({ ...filterParams(form), limit: PAGE_SIZE }, controller.signal).then(
      (page) => {
        setRows(page.data)
        setCursor(page.next_cursor)
        setError(null)
        setAnswered(query)
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return
        setError(errorMessage(failure))
        setAnswered(query)
      },
    )
    return () => controller.abort()
  }, [client, form, query])

  const status = useLoad(
    useCallback((signal: AbortSignal) => client.captureStatus(signal), [client]),
    [client, refresh, statusTick],
    { keepWhileReloading: true },
  )
  // A gateway without the traffic API (or that refuses it) has no capture to show.
  const capture = status.kind === 'loading' ? undefined : status.kind === 'ready' ? status.value : null

  // While a search runs, live events re-run it (at most every SEARCH_REFRESH_MS).
  const search = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(search.current), [])
  const open = useCallback((signal: AbortSignal) => client.openTrafficLive(signal), [client])
  const connection = useLiveEvents(open, parseTrafficEvent, (events: TrafficEvent[]) => {
    setRows((current) => events.reduce((r, e) => applyTrafficEvent(r, e, formRef.current), current))
    if (events.some((event) => event.type !== 'exchange.started')) setStatusTick((n) => n + 1)
    if (isSearching(formRef.current) && search.current === undefined) {
      search.current = setTimeout(() => {
        search.current = undefined
        setRefresh((n) => n + 1)
      }, SEARCH_REFRESH_MS)
    }
  })

  const loadOlder = useCallback(() => {
    if (cursor === null) return
    client.listExchanges({ ...filterParams(formRef.current), limit: PAGE_SIZE, cursor }).then(
      (page) => {
        setRows((current) => mergePage(current, page.data))
        setCursor(page.next_cursor)
      },
      (failure: unknown) => setError(errorMessage(failure)),
    )
  }, [client, cursor])

  const clear = useCallback(async () => {
    await client.clearExchanges()
    setRows([])
    setCursor(null)
  }, [client])

  return { rows, loading: answered !== query, error, connection, capture, hasOlder: cursor !== null, loadOlder, clear }
}
