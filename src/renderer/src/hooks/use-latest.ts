import { useEffect, useRef, type RefObject } from 'react'

/**
 * A ref that always holds the latest `value`: for a callback an effect calls, so that a new
 * closure each render does not restart the effect (reopen a stream, start another read).
 */
export function useLatest<T>(value: T): RefObject<T> {
  const ref = useRef(value)
  useEffect(() => {
    ref.current = value
  }, [value])
  return ref
}
