/**
 * Excel template, import and export of stations (`cloud/src/station/excel.rs`). An import is all
 * or nothing: when any row is wrong the server answers 400 with every problem by row and field
 * (`data.errors`) and imports nothing.
 */
import request, { RequestError } from '../request'
import type { Envelope, PageQuery } from '../types'

/** One problem of a refused import, as the server reports it. */
export interface ImportRowError {
  /** Row number as Excel shows it. */
  row: number
  /** Wire name of the field; empty for a problem of the whole row. */
  field: string
  /** The column's label in the console's language. */
  label: string
  message: string
}

export type ImportResult =
  { ok: true; imported: number } | { ok: false; message: string; errors: ImportRowError[] }

/** A downloaded file: its bytes and the name the server gave it (or the fallback). */
export interface Download {
  blob: Blob
  filename: string
}

/** `attachment; filename="x.xlsx"` / `filename*=UTF-8''…` → the file name. */
export function filenameOf(disposition: string | undefined | null, fallback: string): string {
  if (!disposition) return fallback
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disposition)
  if (star) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''))
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition)
  return plain ? plain[1].trim() : fallback
}

export async function download(
  path: string,
  fallback: string,
  params?: PageQuery | Record<string, string>,
): Promise<Download> {
  const res = await request.get<Blob>(path, { params, responseType: 'blob' })
  const disposition = res.headers['content-disposition'] as string | undefined
  return { blob: res.data, filename: filenameOf(disposition, fallback) }
}

/** Hands a downloaded file to the browser as a file save. */
export function saveDownload({ blob, filename }: Download): void {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.appendChild(link)
  link.click()
  link.remove()
  // Revoked later: some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

export const stationTemplate = () => download('/station/import-template', 'station-template.xlsx')

/** The stations of the list with these filters (no paging), in the template's layout. */
export const exportStations = (filters: PageQuery) =>
  download('/station/export', 'stations.xlsx', filters)

/** The spec's rule for template uploads: .xls/.xlsx only. */
export const isExcelFile = (name: string) => /\.xlsx?$/i.test(name.trim())

/**
 * A refused import's answer → what the console shows: the message and the row errors, sorted by
 * row; a refusal without a report (wrong file type, unreadable file) has no rows.
 */
export function importFailure(error: unknown): { message: string; errors: ImportRowError[] } {
  const message = error instanceof Error ? error.message : String(error)
  if (!(error instanceof RequestError)) return { message, errors: [] }
  const body = error.response?.data as { data?: { errors?: unknown } } | undefined
  const raw = Array.isArray(body?.data?.errors) ? (body.data.errors as unknown[]) : []
  const errors = raw
    .filter((e): e is Record<string, unknown> => e !== null && typeof e === 'object')
    .map((e) => ({
      row: Number(e.row ?? 0),
      field: typeof e.field === 'string' ? e.field : '',
      label: typeof e.label === 'string' ? e.label : '',
      message: typeof e.message === 'string' ? e.message : '',
    }))
    .sort((a, b) => a.row - b.row)
  return { message, errors }
}

/** Imports stations from an .xls/.xlsx file; silent, so the caller shows the row report. */
export async function importStations(file: File): Promise<ImportResult> {
  const form = new FormData()
  form.append('file', file)
  try {
    const res = await request.post<Envelope<{ imported?: number } | null>>(
      '/station/import',
      form,
      {
        upload: true,
        silent: true,
      },
    )
    return { ok: true, imported: Number(res.data.data?.imported ?? 0) }
  } catch (error) {
    return { ok: false, ...importFailure(error) }
  }
}
