/**
 * `value` as one of `options`, or undefined: how a <select>'s string becomes the union its options
 * were made from, without a cast (a value the list does not have cannot slip through).
 */
export function oneOf<T extends string>(options: readonly T[], value: string): T | undefined {
  return options.find((option) => option === value)
}
