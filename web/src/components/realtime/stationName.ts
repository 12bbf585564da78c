/**
 * Station names where room is short (chart axes, the big screen): the part that tells stations
 * apart. Names of one fleet often share a beginning ("演示-青海…", "演示-苏州…"), and a name cut
 * to its first characters then reads the same for every station. The whole name stays in the
 * tooltip.
 */

/** Where a shared beginning may end: after a separator, so no word is split. */
const SEPARATORS = new Set(['-', '－', '—', '–', '_', '·', ':', '：', ' ', '/', '|'])

/** The beginning every name shares, up to and including its last separator ('' if none). */
export function sharedPrefix(names: readonly string[]): string {
  if (names.length < 2) return ''
  let prefix = names[0]
  for (const name of names) {
    let i = 0
    while (i < prefix.length && i < name.length && prefix[i] === name[i]) i++
    prefix = prefix.slice(0, i)
  }
  let end = prefix.length
  while (end > 0 && !SEPARATORS.has(prefix[end - 1])) end--
  // A name that is all prefix keeps it.
  if (names.some((n) => n.length <= end)) return ''
  return prefix.slice(0, end)
}

/** `names` without their shared beginning, by name. */
export function shortNames(names: readonly string[]): Map<string, string> {
  const prefix = sharedPrefix(names)
  return new Map(names.map((n) => [n, n.slice(prefix.length)]))
}
