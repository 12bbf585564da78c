/** What an assignment change does: stations given and taken away (for the confirmation toast). */
export function assignmentChange(
  before: readonly string[],
  after: readonly string[],
): { added: number; removed: number } {
  const old = new Set(before)
  const next = new Set(after)
  return {
    added: [...next].filter((id) => !old.has(id)).length,
    removed: [...old].filter((id) => !next.has(id)).length,
  }
}
