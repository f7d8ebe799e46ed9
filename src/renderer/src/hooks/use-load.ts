import { useEffect, useState } from 'react'
import { errorMessage } from '../logic/error-message'
import { useLatest } from './use-latest'

/** Something read from the gateway: not yet, read, or why it could not be. */
export type Loaded<T> = { kind: 'loading' } | { kind: 'ready'; value: T } | { kind: 'failed'; message: string; error: unknown }

interface LoadOptions {
  /** Read again this long after each answer (one request at a time), while mounted. */
  pollMs?: number
  /**
   * The key names the same thing, only newer (a list after a change to it): while it is read
   * again, keep showing the last answer instead of `loading`.
   */
  keepWhileReloading?: boolean
}

const sameKey = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((value, i) => Object.is(value, b[i]))

/**
 * Runs `load` when mounted and again whenever `key` changes (its values are compared one by one,
 * like an effect's dependencies: what to read, and signs that it changed), aborting the read in
 * flight when it does or when the component goes. What a read answers is shown only under the
 * key it was made for: a new key starts from `loading`, never from the previous key's value.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, key: readonly unknown[], { pollMs, keepWhileReloading = false }: LoadOptions = {}): Loaded<T> {
  const [state, setState] = useState<{ key: readonly unknown[]; loaded: Loaded<T> }>({ key, loaded: { kind: 'loading' } })
  // The key's identity for the effect: a new array with the same values is the same key.
  const [stableKey, setStableKey] = useState(key)
  if (!sameKey(stableKey, key)) setStableKey(key)
  const loadRef = useLatest(load)

  useEffect(() => {
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const read = async () => {
      let loaded: Loaded<T>
      try {
        loaded = { kind: 'ready', value: await loadRef.current(controller.signal) }
      } catch (error) {
        loaded = { kind: 'failed', message: errorMessage(error), error }
      }
      if (controller.signal.aborted) return
      setState({ key: stableKey, loaded })
      if (pollMs !== undefined) timer = setTimeout(() => void read(), pollMs)
    }
    void read()
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
  }, [stableKey, pollMs, loadRef])

  return keepWhileReloading || sameKey(state.key, key) ? state.loaded : { kind: 'loading' }
}
